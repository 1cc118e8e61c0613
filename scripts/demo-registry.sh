#!/usr/bin/env bash
# demo-registry.sh: publish the example skills to the embedded registry (a
# directory of OCI layouts under $XDG_DATA_HOME/skillpm/registry) and show
# what skillpm knows about one of them without downloading its files.
#
# SKILLPM is the skillpm binary (default: bin/skillpm). XDG_DATA_HOME and
# XDG_CACHE_HOME point into a temporary directory unless the caller (make
# demo) already set them to one of its own: nothing of the user's is touched.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SKILLPM=${SKILLPM:-$repo/bin/skillpm}
case $SKILLPM in /*) ;; */*) SKILLPM=$PWD/$SKILLPM ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillpm-registry-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "${SKILLPM_DEMO_KEEP_XDG:-}" ]; then
	export XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache
fi
cd "$repo"

show() { printf '\n$ skillpm'; printf ' %q' "$@"; printf '\n'; }
run() { show "$@"; "$SKILLPM" "$@" 2>&1; }

for dir in testdata/skills/* testdata/asf/*; do
	[ -f "$dir/SKILL.md" ] || continue
	show publish "$dir"
	# An invalid skill (incident-review has no version) is refused with
	# exit 3 and its diagnostics; the demo goes on.
	rc=0
	"$SKILLPM" publish "$dir" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "(refused, exit $rc: invalid skills never publish)"
	fi
done

# Publishing the same files again changes nothing: versions are immutable.
run publish testdata/skills/web-search
run info web-search
run info fix@^1
echo
echo "embedded registry: $XDG_DATA_HOME/skillpm/registry"
ls "$XDG_DATA_HOME/skillpm/registry"
