#!/usr/bin/env bash
# make faults: install a signed graph 200 times and mirror it 20 times
# through the fault-injecting proxy (a fault in 10% of the requests, every
# kind, chosen by seed), and print how many succeeded, how many failed
# cleanly, the worst wall time, and the corrupted roots, locks and caches
# (which must be 0; the benchmark fails otherwise). SKILLPM_FAULTS_INSTALLS,
# _MIRRORS, _RATE and _SEED override the defaults below.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false"
export SKILLPM_FAULTS_INSTALLS=${SKILLPM_FAULTS_INSTALLS:-200}
export SKILLPM_FAULTS_MIRRORS=${SKILLPM_FAULTS_MIRRORS:-20}
export SKILLPM_FAULTS_RATE=${SKILLPM_FAULTS_RATE:-0.10}
export SKILLPM_FAULTS_SEED=${SKILLPM_FAULTS_SEED:-1}
mkdir -p bin
out=bin/faults.out
echo "faults: $SKILLPM_FAULTS_INSTALLS installs, $SKILLPM_FAULTS_MIRRORS mirrors, rate $SKILLPM_FAULTS_RATE, seed $SKILLPM_FAULTS_SEED"
status=0
go test -run '^$' -bench '^BenchmarkFaults$' -benchtime 1x -timeout 60m -v ./engine >"$out" 2>&1 || status=$?
line=$(grep '^BenchmarkFaults' "$out" | grep 'ns/op' || true)
if [ -z "$line" ]; then
	cat "$out" >&2
	exit 1
fi
metric() { echo "$line" | awk -v m="$1" '{for (i = 2; i <= NF; i++) if ($i == m) {printf "%d\n", $(i-1); exit}}'; }
printf '%-28s %s\n' \
	"installs succeeded" "$(metric installs-ok)" \
	"installs failed cleanly" "$(metric installs-failed-clean)" \
	"installs corrupted" "$(metric installs-corrupt)" \
	"failed installs run again ok" "$(metric reruns-ok)" \
	"mirrors succeeded" "$(metric mirrors-ok)" \
	"mirrors failed cleanly" "$(metric mirrors-failed-clean)" \
	"mirrors corrupted" "$(metric mirrors-corrupt)" \
	"worst wall time (ms)" "$(metric worst-ms)" \
	"requests through the proxy" "$(metric requests)"
grep 'failed cleanly' "$out" | sed 's/^ *faults_bench_test.go:[0-9]*: /  /' >&2 || true
exit $status
