#!/usr/bin/env bash
# demo-install.sh: install the signed fix workflow with its dependencies from
# the embedded registry into a host root, list it, and run the installed
# workflow's first steps with the bundled ASF runner.
#
# Run by scripts/demo.sh after demo-registry.sh and demo-sign.sh, in the
# demo's home: it uses the skills they published and signed and the trust
# policy demo-sign.sh wrote to $XDG_CONFIG_HOME/skillpm/policy.yaml.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SKILLPM=${SKILLPM:-$repo/bin/skillpm}
state=$HOME/asf-state

show() { printf '\n$ skillpm'; printf ' %q' "$@"; printf '\n'; }
run() { show "$@"; "$SKILLPM" "$@" 2>&1; }

# The auditor countersigns diagnosis, which claims verified: now it is.
SKILLPM_PASSWORD= run promote diagnosis@1.0.0 --key "$HOME/skillpm-sign-demo/auditor.key"

# code declares shell:execute, which a community skill may only use with
# consent: without a terminal the install is refused and names the flag
# (--grant NAME:PERM for a dependency, with the chain that needs it).
show install fix@^1 --host claude
rc=0
"$SKILLPM" install fix@^1 --host claude </dev/null 2>&1 || rc=$?
echo "(refused, exit $rc: nothing was written)"

run install fix@^1 --host claude --grant code:shell:execute
run install fix@^1 --host claude --grant code:shell:execute
run list --host claude

# The bundled ASF runner finds the installed workflow in claude's roots.
run run fix "The login page returns 500 after a password reset" --host claude --state-root "$state" --session demo
run asf complete DIAGNOSIS_001_CAPTURE_CLASSIFY --host claude --state-root "$state" --session demo
run asf status --host claude --state-root "$state" --session demo
