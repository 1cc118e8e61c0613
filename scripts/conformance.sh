#!/usr/bin/env bash
# Conformance against the real hosts: install pinned Claude Code, Codex and
# OpenCode from the npm registry into a temporary prefix, install skills
# with skillpm for each host (default roots, the roots the variables move,
# the shared .agents root), and check that each host lists them with its own
# offline listing:
#   Codex     codex debug prompt-input      (the model-visible skills list)
#   OpenCode  opencode debug skill          (JSON: name, location)
#   Claude    claude -p --output-format stream-json: the first event, init,
#             lists the skills before any model call; the API key is a
#             dummy and the API base a closed local port, so no account and
#             no network are used (the call after init fails, as intended).
# Nothing outside the temporary directory is touched.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.332}
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

echo "== npm install @anthropic-ai/claude-code@$CLAUDE_VERSION @openai/codex@$CODEX_VERSION opencode-ai@$OPENCODE_VERSION"
npm install --prefix "$tmp/npm" --no-audit --no-fund --loglevel=error \
	"@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" "opencode-ai@$OPENCODE_VERSION" >/dev/null
bin=$tmp/npm/node_modules/.bin
go build -o "$tmp/skillpm" ./cmd/skillpm
echo "   $("$bin/claude" --version) / $("$bin/codex" --version) / opencode $("$bin/opencode" --version)"

fail=0
ok() { echo "   ok    $*"; }
bad() {
	echo "   FAIL  $*"
	fail=1
}

# skill NAME: a minimal skill in $tmp/src/NAME.
skill() {
	mkdir -p "$tmp/src/$1"
	printf -- '---\nname: %s\ndescription: Conformance skill %s installed by skillpm.\nversion: 1.0.0\n---\nSay hello.\n' "$1" "$1" >"$tmp/src/$1/SKILL.md"
}

# scenario NAME: a fresh home and git project; the rest of the arguments
# are VAR=VALUE pairs for the hosts' variables.
scenario() {
	name=$1
	shift
	home=$tmp/$name/home proj=$tmp/$name/proj
	mkdir -p "$home" "$proj"
	git -C "$proj" init -q
	vars=(HOME="$home" PATH="$PATH" "$@")
	echo "== $name ${*:-(default roots)}"
}

run() { (cd "$proj" && exec env -i "${vars[@]}" "$@"); }

install() { # install SKILL ARGS...
	local s=$1
	shift
	run "$tmp/skillpm" install "$tmp/src/$s" --no-vcs --allow-experimental "$@" >/dev/null
}

lists_claude() { # SKILL...
	# Claude Code prints the init event at once, then retries the closed API
	# port for minutes: wait for init and stop it.
	local f=$tmp/claude.out pid i
	: >"$f"
	# Not through run: $! must be the process that becomes timeout (the
	# subshell execs into it), so that killing it stops Claude Code rather
	# than orphaning it to keep writing into $tmp.
	(cd "$proj" && exec env -i "${vars[@]}" ANTHROPIC_API_KEY=sk-conformance-dummy ANTHROPIC_BASE_URL=http://127.0.0.1:9 \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		timeout 120 "$bin/claude" -p hello --output-format stream-json --verbose --max-turns 1) >"$f" 2>/dev/null &
	pid=$!
	for i in $(seq 600); do
		if grep -aq '"subtype":"init"' "$f"; then break; fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	local skills
	skills=$(grep -a -m1 '"subtype":"init"' "$f" | node -e 'const e=JSON.parse(require("fs").readFileSync(0,"utf8")); console.log((e.skills||[]).join(" "))' 2>/dev/null || true)
	for s in "$@"; do
		if [[ " $skills " == *" $s "* ]]; then ok "claude lists $s"; else bad "claude does not list $s (init skills: $skills)"; fi
	done
}

lists_codex() { # SKILL:DIR...
	local out
	out=$(run timeout 120 "$bin/codex" debug prompt-input 2>/dev/null || true)
	for sd in "$@"; do
		local s=${sd%%:*} d=${sd#*:}
		if grep -q -- "- $s: " <<<"$out" && grep -qF -- "\`$d\`" <<<"$out"; then ok "codex lists $s from $d"; else bad "codex does not list $s from $d"; fi
	done
}

lists_opencode() { # SKILL:DIR...
	local out
	out=$(run timeout 120 "$bin/opencode" debug skill 2>/dev/null || true)
	for sd in "$@"; do
		local s=${sd%%:*} d=${sd#*:}
		if node -e 'const [s,d]=process.argv.slice(1); const l=JSON.parse(require("fs").readFileSync(0,"utf8")); process.exit(l.some(x=>x.name===s&&x.location===d+"/"+s+"/SKILL.md")?0:1)' "$s" "$d" <<<"$out"; then
			ok "opencode lists $s from $d"
		else bad "opencode does not list $s from $d"; fi
	done
}

lists_opencode_once() { # SKILL DIR...: listed once, from one of the DIRs
	local out s=$1
	shift
	out=$(run timeout 120 "$bin/opencode" debug skill 2>/dev/null || true)
	if node -e 'const [s,...ds]=process.argv.slice(1); const l=JSON.parse(require("fs").readFileSync(0,"utf8")).filter(x=>x.name===s); process.exit(l.length===1&&ds.some(d=>l[0].location===d+"/"+s+"/SKILL.md")?0:1)' "$s" "$@" <<<"$out"; then
		ok "opencode lists $s once, from $(node -e 'const s=process.argv[1]; console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).find(x=>x.name===s).location)' "$s" <<<"$out")"
	else bad "opencode does not list $s once from one of $* ($(grep -c "\"$s\"" <<<"$out") entries)"; fi
}

is_link() { # PATH TARGET
	if [ "$(readlink "$1")" = "$2" ]; then ok "$1 is a link to $2"; else bad "$1 is not a link to $2"; fi
}

for s in conf-claude conf-codex conf-opencode conf-shared conf-project conf-link conf-link-project conf-link-codex conf-link-opencode; do skill "$s"; done

scenario default
install conf-claude --host claude
install conf-codex --host codex
install conf-opencode --host opencode
install conf-shared --host agents
install conf-project --host agents --scope project
lists_claude conf-claude
lists_codex "conf-codex:$home/.codex/skills" "conf-shared:$home/.agents/skills" "conf-project:$proj/.agents/skills"
lists_opencode "conf-opencode:$home/.config/opencode/skills" "conf-shared:$home/.agents/skills" \
	"conf-project:$proj/.agents/skills" "conf-claude:$home/.claude/skills"

scenario moved CLAUDE_CONFIG_DIR="$tmp/moved/claude-config" CODEX_HOME="$tmp/moved/codex-home" XDG_CONFIG_HOME="$tmp/moved/xdg"
install conf-claude --host claude
install conf-codex --host codex
install conf-opencode --host opencode
lists_claude conf-claude
lists_codex "conf-codex:$tmp/moved/codex-home/skills"
lists_opencode "conf-opencode:$tmp/moved/xdg/opencode/skills"

scenario relative CLAUDE_CONFIG_DIR=rel/claude CODEX_HOME=rel/codex XDG_CONFIG_HOME=rel/xdg
install conf-claude --host claude
install conf-codex --host codex
install conf-opencode --host opencode
lists_claude conf-claude
lists_codex "conf-codex:$proj/rel/codex/skills"
lists_opencode "conf-opencode:$proj/rel/xdg/opencode/skills"

# A literal "~" (quoted, so no shell expanded it): the hosts read it as a
# directory named "~" under the working directory, and skillpm writes there.
scenario tilde 'CLAUDE_CONFIG_DIR=~/tc' 'CODEX_HOME=~/tx' 'XDG_CONFIG_HOME=~/tg'
install conf-claude --host claude
install conf-codex --host codex
install conf-opencode --host opencode
lists_claude conf-claude
lists_codex "conf-codex:$proj/~/tx/skills"
lists_opencode "conf-opencode:$proj/~/tg/opencode/skills"

scenario project
install conf-claude --host claude --scope project
install conf-codex --host codex --scope project
install conf-opencode --host opencode --scope project
lists_claude conf-claude
lists_codex "conf-codex:$proj/.codex/skills"
lists_opencode "conf-opencode:$proj/.opencode/skills" "conf-claude:$proj/.claude/skills"

# install --link: one copy in .agents/skills, a relative symlink in
# Claude's root; Codex and OpenCode read .agents/skills, so the copy serves
# them without a link. OpenCode also reads Claude's root: it must list the
# skill once (the link and its copy are one skill to it).
scenario link
install conf-link --link --host claude --host codex --host opencode
install conf-link-project --link --host claude --host codex --scope project
is_link "$home/.claude/skills/conf-link" ../../.agents/skills/conf-link
is_link "$proj/.claude/skills/conf-link-project" ../../.agents/skills/conf-link-project
lists_claude conf-link conf-link-project
lists_codex "conf-link:$home/.agents/skills" "conf-link-project:$proj/.agents/skills"
lists_opencode_once conf-link "$home/.claude/skills" "$home/.agents/skills"
lists_opencode_once conf-link-project "$proj/.claude/skills" "$proj/.agents/skills"
# Codex and OpenCode follow a link skillpm makes too: a hosts-file host
# whose root is theirs (the built-in table never links into them, since
# they read the copy already) gets links, which they list.
cat >"$tmp/link-hosts.yaml" <<'YAML'
hosts:
  - id: probe-codex
    name: Codex root, linked
    user: [{env: CODEX_HOME, dir: ~/.codex, join: skills}]
    project: [{dir: .codex/skills}]
    search: [user]
    duplicates: all
    symlinks: followed
    sources: [{fact: roots, ref: "conformance probe"}]
  - id: probe-opencode
    name: OpenCode root, linked
    user: [{env: XDG_CONFIG_HOME, dir: ~/.config, join: opencode/skills}]
    project: [{dir: .opencode/skills}]
    search: [user]
    duplicates: first-wins
    symlinks: followed
    sources: [{fact: roots, ref: "conformance probe"}]
YAML
vars+=(SKILLPM_HOSTS="$tmp/link-hosts.yaml")
install conf-link-codex --link --host probe-codex
install conf-link-opencode --link --host probe-opencode
is_link "$home/.codex/skills/conf-link-codex" ../../.agents/skills/conf-link-codex
lists_codex "conf-link-codex:$home/.codex/skills"
# Codex reads the link in ~/.codex/skills and the copy in ~/.agents/skills:
# one skill to it (0.171.0 lists it once).
n=$(run timeout 120 "$bin/codex" debug prompt-input 2>/dev/null | grep -c -- "- conf-link-codex: " || true)
if [ "$n" = 1 ]; then ok "codex lists conf-link-codex once (link and copy are one skill)"; else bad "codex lists conf-link-codex $n times"; fi
lists_opencode_once conf-link-opencode "$home/.config/opencode/skills" "$home/.agents/skills"

echo "== $((SECONDS - start))s"
if [ "$fail" != 0 ]; then
	echo "conformance: FAIL"
	exit 1
fi
echo "conformance: ok"
