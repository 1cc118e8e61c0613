#!/usr/bin/env bash
# demo-asf.sh: run the first steps of an installed ASF workflow with skillpm's
# bundled runner: fix -> diagnosis (3 steps, the last asks the user) -> code.
#
# SKILLPM is the skillpm binary (default: bin/skillpm). The example skills
# from testdata/asf are placed in a temporary project's .claude/skills (the
# project-scope discovery root, found without --skills-root) and the state
# goes to a temporary state root: nothing outside the temp dir is touched.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SKILLPM=${SKILLPM:-$repo/bin/skillpm}
case $SKILLPM in /*) ;; */*) SKILLPM=$PWD/$SKILLPM ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillpm-asf-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

project=$tmp/project
mkdir -p "$project/.claude/skills"
cp -R "$repo/testdata/asf/fix" "$repo/testdata/asf/diagnosis" "$repo/testdata/asf/code" "$project/.claude/skills/"
cd "$project"
unset ASF_SKILLS_ROOT ASF_STATE ASF_SESSION
state=(--state-root "$tmp/state" --session demo)

show() { printf '\n$ skillpm'; printf ' %q' "$@"; printf '\n'; }
run() { show "$@"; "$SKILLPM" "$@" 2>&1; }

run asf validate fix
run run fix "The login page returns 500 after a password reset" "${state[@]}"
run asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY "${state[@]}"
run asf complete DIAGNOSIS_002_REFERENCE_CHECK "${state[@]}"

# The ask_user gate holds until the user has confirmed.
show asf complete DIAGNOSIS_007_EXPLAIN_CONFIRM "${state[@]}"
if "$SKILLPM" asf complete DIAGNOSIS_007_EXPLAIN_CONFIRM "${state[@]}" 2>&1; then
	echo "demo-asf: the user-confirmation gate did not hold" >&2
	exit 1
fi
run asf complete DIAGNOSIS_007_EXPLAIN_CONFIRM --confirmed "${state[@]}"
run asf status "${state[@]}"
