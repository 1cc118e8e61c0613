#!/usr/bin/env bash
# make bench: run every benchmark with its peer where there is one (the oras
# CLI, GNU tar) in the same run, and print one table: figure, peer, ratio
# and target. Raw `go test -bench` output is kept in bin/bench.out.
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmarks run against the real parts (the distribution registry,
# oras), as the integration build does.
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -tags=integration"
export PATH="$(go env GOPATH)/bin:$PATH"
mkdir -p bin
out=bin/bench.out
: >"$out"

# Temporary directories (the benchmarks' roots, caches and the peers'
# output) go to a tmpfs when there is one, so that the figures compare the
# programs rather than the disk: on the VM these figures come from, ext4
# metadata latency drifted from 25 us to 900 us per file create within one
# hour. BENCH_TMPDIR overrides; the cold install is also run once on disk
# (bin/benchtmp) and shown as its own row.
tmp=${BENCH_TMPDIR:-}
if [ -z "$tmp" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ "$(df -Pk /dev/shm | awk 'NR==2 {print $4}')" -gt 4000000 ]; then
	tmp=/dev/shm
fi
if [ -n "$tmp" ]; then
	export TMPDIR="$tmp"
fi
echo "temporary directories in ${TMPDIR:-/tmp} ($(stat -f -c %T "${TMPDIR:-/tmp}"))" >&2

bench() { # package, regexp, benchtime, extra flags...
	local pkg=$1 re=$2 bt=$3
	shift 3
	echo "running $pkg $re" >&2
	go test -run '^$' -bench "$re" -benchtime "$bt" "$@" "$pkg" | grep '^Benchmark' | tee -a "$out" >&2
}

bench ./pkg/skill 'ValidateCorpus' 5x
bench ./pkg/archive 'Pack100MB|Unpack100MB' 2x
bench ./resolve 'Solve|Lock50Cached' 3x
bench ./sign 'Verify100' 20x -cpu 1
bench ./registry 'PublishPull100' 1x
bench ./install 'InstallCold100' 3x
bench ./install 'InstallLargeAsset' 1x
mkdir -p bin/benchtmp
TMPDIR="$PWD/bin/benchtmp" go test -run '^$' -bench 'InstallCold100' -benchtime 3x ./install | grep '^Benchmark' |
	sed 's/^BenchmarkInstallCold100/BenchmarkInstallCold100OnDisk/' | tee -a "$out" >&2
bench ./install 'InstallWarmNoop' 20x
if [ -d pkg/audit ]; then
	bench ./pkg/audit 'AuditCorpus|AuditPathological' 3x
	# Precision and recall of the audit on its labelled set (testdata/labelled).
	go test -run '^TestLabelled$' -count=1 -v ./pkg/audit | grep -o 'LABELLED .*' | tee -a "$out" >&2 || true
fi
bench ./registry '^BenchmarkMirror200$' 2x
bench ./registry/advisory 'Lookup10000x1000' 5x

# Latency: the same graph through a proxy that adds a round trip time to
# every request and every new connection (SKILLPM_BENCH_RTT, default
# 50ms), skillpm beside the oras CLI through the same proxy. Its own table.
lat=bin/bench-latency.out
go test -run '^$' -bench 'Latency100' -benchtime 1x -timeout 20m ./install | grep '^Benchmark' | tee "$lat" >&2
go test -run '^$' -bench 'LatencyMirror200' -benchtime 1x -timeout 20m ./registry | grep '^Benchmark' | tee -a "$lat" >&2

# Peer for packing: GNU tar + gzip over the same kind of 100 MB tree.
peer=$(mktemp -d)
trap 'rm -rf "$peer"' EXIT
mkdir -p "$peer/skill/big-skill"
printf -- '---\nname: big-skill\ndescription: Peer benchmark. Use in benchmarks.\nversion: 1.0.0\n---\n' >"$peer/skill/big-skill/SKILL.md"
head -c 100000000 /dev/urandom >"$peer/skill/big-skill/asset.bin"
t0=$(date +%s.%N)
tar --sort=name --mtime=@0 --owner=0 --group=0 -C "$peer/skill" -cf - big-skill | gzip -6 -n >"$peer/peer.tar.gz"
t1=$(date +%s.%N)
mkdir -p "$peer/x" && tar -C "$peer/x" -xzf "$peer/peer.tar.gz"
t2=$(date +%s.%N)
tar_pack=$(echo "$t1 - $t0" | bc)
tar_unpack=$(echo "$t2 - $t1" | bc)

awk -v tar_pack="$tar_pack" -v tar_unpack="$tar_unpack" '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
function secs(ns) { return sprintf("%.3f s", ns / 1e9) }
BEGIN {
	printf "| benchmark | skillpm | peer | ratio | target |\n|---|---|---|---|---|\n"
}
{
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
	ns = metric("ns/op")
	if (name == "ValidateCorpus") printf "| validate %s corpus skills | %s | - | - | < 2 s |\n", metric("skills"), secs(ns)
	else if (name == "Pack100MB") printf "| pack 100 MB | %s (%s MB/s, peak heap %s MB) | tar+gzip %.3f s | %.2f | streams |\n", secs(ns), metric("MB/s"), metric("peak-heap-MB"), tar_pack, (ns/1e9)/tar_pack
	else if (name == "Unpack100MB") printf "| unpack 100 MB | %s (%s MB/s, peak heap %s MB) | tar -xz %.3f s | %.2f | streams |\n", secs(ns), metric("MB/s"), metric("peak-heap-MB"), tar_unpack, (ns/1e9)/tar_unpack
	else if (name ~ /^Solve|^Lock50/) printf "| %s | %.2f ms | - | - | %s |\n", name, ns/1e6, (name == "Solve10000" ? "< 1 s" : (name == "Solve50" || name == "Lock50Cached" ? "< 10 ms" : "-"))
	else if (name == "Verify100" || name == "VerifySkill100") printf "| %s (one core) | %.3f ms/signature | - | - | < 2 ms |\n", name, metric("ns/sig")/1e6
	else if (name ~ /OnDisk$/) printf "| %s (temporary dirs on disk) | %s ms | oras loop %s ms | %.2f | (reported; disk-bound) |\n", name, metric("skillpm-ms"), metric("oras-ms"), metric("skillpm/oras")
	else if (metric("oras-ms") != "") printf "| %s | %s ms | oras loop %s ms | %.2f | <= 0.25 |\n", name, metric("skillpm-ms"), metric("oras-ms"), metric("skillpm/oras")
	else if (name == "InstallWarmNoop") printf "| warm no-op install of 100 skills | %.1f ms, %s registry requests | - | - | < 50 ms, 0 requests |\n", ns/1e6, metric("requests")
	else if (name == "InstallLargeAsset") printf "| install a 500 MB asset | %s, peak heap %s MB | - | - | < 100 MB |\n", secs(ns), metric("peak-heap-MB")
	else if (name == "AuditCorpus") printf "| audit %s corpus skills | %s | - | - | < 3 s |\n| audit: slowest corpus skill | %.1f ms | - | - | < 1 s |\n", metric("skills"), secs(ns), metric("worst-skill-ms")
	else if (name == "AuditPathological") printf "| audit: slowest pathological skill (chains, nesting, huge lines, paren bomb) | %.1f ms | - | - | < 1 s |\n", metric("worst-skill-ms")
	else if (name == "Lookup10000x1000") printf "| advisory check: feed of 10,000 parsed, indexed, 1,000 installed skills looked up | %.1f ms | - | - | < 1 s |\n", ns/1e6
	else if (name == "LABELLED") printf "| audit labelled set at %s: %s cases | precision %s | recall %s | - | recall 1.00 |\n", $2, $3, $4, $5
	else printf "| %s | %s | - | - | - |\n", name, secs(ns)
}' "$out"

# The physical floor of a figure is its sequential round trips times the
# RTT plus its bytes over the link's bandwidth (SKILLPM_BENCH_MBPS, in
# Mbit/s, default 100): what no client can beat with that many rounds.
echo
awk -v mbps="${SKILLPM_BENCH_MBPS:-100}" '
function metric(name,   i) { for (i = 3; i < NF; i++) if ($(i+1) == name) return $i; return "" }
function floor_ms(side) { return metric(side "rounds") * rtt + metric(side "bytes") * 8 / (mbps * 1e3) }
function fig(side) { return sprintf("%.0f ms, %d rounds, %d requests (floor %.0f ms)", metric(side "ms"), metric(side "rounds"), metric(side "requests"), floor_ms(side)) }
BEGIN { first = 1 }
{
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
	rtt = metric("rtt-ms")
	if (first) {
		printf "| at %d ms RTT, %d Mbit/s | skillpm | oras loop | ratio | target |\n|---|---|---|---|---|\n", rtt, mbps
		first = 0
	}
	if (name == "Latency100/cold") printf "| cold install, 100-skill graph, no index | %s | %s | %.2f | <= 8 rounds, <= 1.0 s |\n", fig("skillpm-"), fig("oras-"), metric("skillpm/oras")
	else if (name == "Latency100/cold-index") printf "| cold install, 100-skill graph, signed sparse index | %s | %s | %.2f | <= 8 rounds, <= 1.0 s |\n", fig("skillpm-"), fig("oras-"), metric("skillpm/oras")
	else if (name == "Latency100/update-index") printf "| update check, 100 installed skills, signed sparse index | %s | %s (tags) | %.2f | <= 2 rounds |\n", fig("skillpm-"), fig("oras-"), metric("skillpm/oras")
	else if (name == "Latency100/warm") printf "| warm no-op install, 100 skills | %.1f ms, %d requests | - | - | 0 requests |\n", metric("skillpm-ms"), metric("skillpm-requests")
	else if (name == "Latency100/update") printf "| update check, 100 installed skills, no index | %s | %s (tags) | %.2f | <= 2 rounds |\n", fig("skillpm-"), fig("oras-"), metric("skillpm/oras")
	else if (name == "Latency100/frozen") printf "| install --frozen from the lock, empty cache | %s | %s (by digest) | %.2f | - |\n", fig("skillpm-"), fig("oras-"), metric("skillpm/oras")
	else if (name == "LatencyMirror200") printf "| mirror 200 signed skills | %s | %s (cp -r over %d, scaled to 200) | %.3f | <= 0.15 |\n", fig("skillpm-"), fig("oras-"), metric("oras-sample"), metric("skillpm/oras")
}' "$lat"

# Installs from a folder and from git beside Vercel's skills CLI, and the
# corpus audit with a cold and a warm cache: its own table.
echo
bash scripts/bench-peer.sh
