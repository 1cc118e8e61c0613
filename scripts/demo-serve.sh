#!/usr/bin/env bash
# demo-serve: how to open the skills panel. It starts `skillpm serve` on a
# free loopback port for a moment to show the URL it prints (with its
# one-time token), then stops it with Ctrl-C (SIGINT), as a user would.
set -euo pipefail
cd "$(dirname "$0")/.."
SKILLPM="${SKILLPM:-$PWD/bin/skillpm}"
if [ -z "${SKILLPM_DEMO_KEEP_XDG:-}" ]; then
	DEMO="$(mktemp -d "${TMPDIR:-/tmp}/skillpm-demo.XXXXXX")"
	trap 'rm -rf "$DEMO"' EXIT
	export HOME="$DEMO/home" XDG_CONFIG_HOME="$DEMO/config" XDG_DATA_HOME="$DEMO/data" XDG_CACHE_HOME="$DEMO/cache"
	mkdir -p "$HOME"
fi

cat <<'TXT'
The skills panel and the /api/skills HTTP API:

    $ skillpm serve                      # binds 127.0.0.1:7878
    skillpm serve: open http://127.0.0.1:7878/?token=<one-time token>

Open the printed URL in a browser on this machine: it lists the installed
skills per host with their tier, installs (showing the permissions a skill
needs before you confirm), removes and searches. The token changes at every
start; without it nothing can be installed or removed, and requests from
other web sites (another Host or Origin) are refused. Ctrl-C stops it.

For a moment, on a free port (stopped with Ctrl-C after a second):
TXT
printf '$ skillpm serve --addr 127.0.0.1:0\n'
timeout --preserve-status -s INT 1 "$SKILLPM" serve --addr 127.0.0.1:0 || true
