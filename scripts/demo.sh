#!/usr/bin/env bash
# make demo: skillpm's main job end to end on the embedded registry, in a
# throw-away home so nothing of the user's is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
SKILLPM="$PWD/bin/skillpm"
export SKILLPM
DEMO="$(mktemp -d "${TMPDIR:-/tmp}/skillpm-demo.XXXXXX")"
trap 'rm -rf "$DEMO"' EXIT
export HOME="$DEMO/home" XDG_CONFIG_HOME="$DEMO/config" XDG_DATA_HOME="$DEMO/data" XDG_CACHE_HOME="$DEMO/cache"
mkdir -p "$HOME"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "Author a skill: scaffold and validate it"
show "$SKILLPM" init "$DEMO/src/hello-world"
# init's description is a placeholder strict validation refuses: write one.
show sed -i 's/^description: .*/description: Greet the user by name. Use when a conversation starts./' "$DEMO/src/hello-world/SKILL.md"
show "$SKILLPM" validate "$DEMO/src/hello-world"

step "Validate the worked examples (strict)"
show "$SKILLPM" validate testdata/skills/* testdata/asf/fix testdata/asf/diagnosis testdata/asf/code ||
	echo "(exit $?: incident-review has no version; strict validation applies the publish rules)"

step "Compiler-style diagnostics for a broken skill (exit 3)"
"$SKILLPM" validate testdata/invalid/tool-param-type/fixture || echo "(exit $?)"

# The parts share this demo's home; each runs in a subshell so its own
# variables and traps stay its own.
export SKILLPM_DEMO_KEEP_XDG=1
for part in registry sign install serve; do
	step "demo-$part"
	# shellcheck source=/dev/null
	(source "scripts/demo-$part.sh")
done

step "Done"
