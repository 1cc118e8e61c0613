#!/usr/bin/env bash
# stage.sh NAME CMD...: run one stage of make test or .ci/run, framed by a
# start line and an end line with its wall time, so a log shows where the
# time went. With STAGE_LOG set, the end line is also appended there, for
# the summary .ci/run prints last.
set -uo pipefail
name=$1
shift
start=$SECONDS
echo "== stage $name"
"$@"
rc=$?
if [ $rc -eq 0 ]; then
	line="stage $name: ok in $((SECONDS - start)) s"
else
	line="stage $name: FAILED (exit $rc) after $((SECONDS - start)) s"
fi
echo "== $line"
if [ -n "${STAGE_LOG:-}" ]; then
	echo "$line" >>"$STAGE_LOG"
fi
exit $rc
