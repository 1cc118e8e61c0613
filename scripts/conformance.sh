#!/usr/bin/env bash
# Conformance against the real hosts: install pinned Claude Code, Codex,
# OpenCode, Gemini CLI, Amp, Copilot and Qwen Code from the npm registry
# into a temporary prefix, install skills with skillpm for each host
# (default roots, the roots the variables move, the shared .agents root),
# and check that each host lists them with its own offline listing:
#   Codex     codex debug prompt-input      (the model-visible skills list)
#   OpenCode  opencode debug skill          (JSON: name, location)
#   Claude    claude -p /SKILL --output-format stream-json: the first
#             event, init, names the skills before any model call, and the
#             session transcript records the folder Claude Code resolved
#             /SKILL to ("Base directory for this skill: ..."), also before
#             any model call; the API key is a dummy and the API base a
#             closed local port, so no account and no network are used (the
#             call after init fails, as intended).
#   Gemini    gemini skills list            (name, Location: the SKILL.md);
#             the project is trusted through GEMINI_CLI_TRUSTED_FOLDERS_PATH,
#             as Gemini CLI loads project skills only in a trusted folder
#   Amp       amp skill list                (file:// URL of each folder),
#             with a dummy AMP_API_KEY
#   Copilot   copilot skill list --json     (name, path of each folder, as
#             COPILOT_HOME gave it: relative to the project when it is)
#   Qwen      qwen -p --output-format stream-json: the init event's
#             slash_commands name the skills (names only: each check uses a
#             name installed in one folder alone); a dummy key, closed port
# The lifecycle scenario publishes a skill with a REFERENCE.md and an
# executable script to an OCI layout, installs it for every host, updates
# it to a new version and removes it, checking each host by folder (Qwen
# by name) after each step. The Codex hooks scenario runs Codex
# with the hooks.json asf hooks install writes.
# Nothing outside the temporary directory is touched.
#
# CONFORMANCE_HOSTS (space-separated ids, default all seven) runs the checks
# of those hosts alone and installs only their CLIs; the checks of what
# skillpm writes (links, files, the Qwen roots) always run.
# CONFORMANCE_HOSTS_YAML builds skillpm with that file in place of the
# built-in hosts/hosts.yaml (go build -overlay), so a broken entry can be
# shown to fail (hosts/conformance_test.go does).
# CONFORMANCE_NPM_PREFIX installs the CLIs there and keeps them, for runs
# one after another (the mutation test).
# The lenient scenario puts hand-made skill folders (an unquoted ": ", a
# lowercase skill.md, a blank line before ---) into each host's root by
# hand and checks that the host loads each exactly when skillpm's install
# for that host accepts it.
# CONFORMANCE_SCENARIOS (space-separated, default all) runs those
# scenarios; the ones that are not optional (default, moved, link, default4,
# moved4, lifecycle) set up what later ones read, so they always run.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.332}
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
GEMINI_VERSION=${GEMINI_VERSION:-0.61.0}
AMP_VERSION=${AMP_VERSION:-0.0.1790142911-g7618fb}
COPILOT_VERSION=${COPILOT_VERSION:-1.0.102}
QWEN_VERSION=${QWEN_VERSION:-0.15.10}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

all_hosts="claude codex opencode gemini amp copilot qwen"
hosts=" ${CONFORMANCE_HOSTS:-$all_hosts} "
on() { [[ $hosts == *" $1 "* ]]; } # on HOST: HOST's checks run
all_scenarios="default moved relative tilde project link default4 moved4 relative4 tilde4 lifecycle lenient codex-hooks"
scenarios=" ${CONFORMANCE_SCENARIOS:-$all_scenarios} "
want() { [[ $scenarios == *" $1 "* ]]; } # want NAME: scenario NAME runs
for sc in $scenarios; do
	[[ " $all_scenarios " == *" $sc "* ]] || { echo "conformance: unknown scenario $sc in CONFORMANCE_SCENARIOS (known: $all_scenarios)" >&2; exit 2; }
done
for h in $hosts; do
	[[ " $all_hosts " == *" $h "* ]] || { echo "conformance: unknown host $h in CONFORMANCE_HOSTS (known: $all_hosts)" >&2; exit 2; }
done

declare -A pkg=([claude]="@anthropic-ai/claude-code@$CLAUDE_VERSION" [codex]="@openai/codex@$CODEX_VERSION"
	[opencode]="opencode-ai@$OPENCODE_VERSION" [gemini]="@google/gemini-cli@$GEMINI_VERSION" [amp]="@ampcode/cli@$AMP_VERSION"
	[copilot]="@github/copilot@$COPILOT_VERSION" [qwen]="@qwen-code/qwen-code@$QWEN_VERSION")
pkgs=()
for h in $hosts; do pkgs+=("${pkg[$h]}"); done
echo "== npm install ${pkgs[*]}"
npmdir=${CONFORMANCE_NPM_PREFIX:-$tmp/npm}
npm install --prefix "$npmdir" --no-audit --no-fund --loglevel=error "${pkgs[@]}" >/dev/null
bin=$npmdir/node_modules/.bin
build=()
if [ -n "${CONFORMANCE_HOSTS_YAML:-}" ]; then
	printf '{"Replace": {"%s": "%s"}}\n' "$PWD/hosts/hosts.yaml" "$(cd "$(dirname "$CONFORMANCE_HOSTS_YAML")" && pwd)/$(basename "$CONFORMANCE_HOSTS_YAML")" >"$tmp/overlay.json"
	build=(-overlay "$tmp/overlay.json")
	echo "== skillpm built with $CONFORMANCE_HOSTS_YAML as its hosts table"
fi
go build "${build[@]}" -o "$tmp/skillpm" ./cmd/skillpm
echo "   hosts:$hosts($((SECONDS - start)) s to install and build)"
checks=0

fail=0
ok() {
	checks=$((checks + 1))
	echo "   ok    $*"
}
bad() {
	checks=$((checks + 1))
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
	echo "== $name ${*:-(default roots)} (at $((SECONDS - start)) s)"
}

run() { (cd "$proj" && exec env -i "${vars[@]}" "$@"); }

install() { # install SKILL ARGS...
	local s=$1
	shift
	# A refusal is a failed check, not the end of the run: a broken entry
	# may make skillpm refuse (a link into a root that ignores links).
	run "$tmp/skillpm" install "$tmp/src/$s" --no-vcs --allow-experimental "$@" >/dev/null 2>"$tmp/install.err" ||
		bad "skillpm install $s $*: $(head -c 300 "$tmp/install.err")"
}

# claude_run PROMPT: starts Claude Code on PROMPT in the scenario, its
# stream-json events into $tmp/claude.out, and waits for the init event
# (or its end); claude_stop stops it. Claude Code prints init at once, then
# retries the closed API port for minutes. Not through run: $claude_pid
# must be the process that becomes timeout (the subshell execs into it),
# so that killing it stops Claude Code rather than orphaning it to keep
# writing into $tmp.
claude_run() {
	local f=$tmp/claude.out i
	: >"$f"
	(cd "$proj" && exec env -i "${vars[@]}" ANTHROPIC_API_KEY=sk-conformance-dummy ANTHROPIC_BASE_URL=http://127.0.0.1:9 \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		timeout 120 "$bin/claude" -p "$1" --output-format stream-json --verbose --max-turns 1) >"$f" 2>/dev/null &
	claude_pid=$!
	for i in $(seq 600); do
		if grep -aq '"subtype":"init"' "$f" || ! kill -0 "$claude_pid" 2>/dev/null; then break; fi
		sleep 0.1
	done
}
claude_stop() {
	kill "$claude_pid" 2>/dev/null || true
	wait "$claude_pid" 2>/dev/null || true
}
# claude_skills: the skill names of the last init event.
claude_skills() {
	grep -a -m1 '"subtype":"init"' "$tmp/claude.out" | node -e 'const e=JSON.parse(require("fs").readFileSync(0,"utf8")); console.log((e.skills||[]).join(" "))' 2>/dev/null || true
}

# lists_claude SKILL:DIR...: Claude Code loads SKILL from DIR/SKILL. The
# init event names skills only, so Claude Code is asked to run the skill
# (-p /SKILL): it resolves the name to the folder it loaded and records
# "Base directory for this skill: FOLDER" in the session transcript under
# its config folder before any model call. That line is Claude Code's own
# answer to which folder it reads, so the check is by folder, as for the
# other hosts.
lists_claude() {
	on claude || return 0
	local sd s d skills got i
	for sd in "$@"; do
		s=${sd%%:*} d=${sd#*:}
		find "$tmp/$name" -path '*/projects/*' -name '*.jsonl' -delete 2>/dev/null || true
		claude_run "/$s"
		skills=$(claude_skills)
		if [[ " $skills " != *" $s "* ]]; then
			claude_stop
			bad "claude does not list $s (init skills: $skills)"
			continue
		fi
		got=
		for i in $(seq 600); do
			got=$(grep -rhoas --include='*.jsonl' 'Base directory for this skill: [^"\\]*' "$tmp/$name" | head -1 || true)
			if [ -n "$got" ] || ! kill -0 "$claude_pid" 2>/dev/null; then break; fi
			sleep 0.1
		done
		claude_stop
		got=${got#Base directory for this skill: }
		# A relative folder (CLAUDE_CONFIG_DIR relative, or a literal
		# "~/x", which Claude Code takes as relative) is the working
		# directory's.
		case $got in /* | "") ;; *) got=$proj/$got ;; esac
		if [ "$got" = "$d/$s" ]; then ok "claude runs $s from $d"; else bad "claude does not run $s from $d (it ran ${got:-no skill folder})"; fi
	done
}

lists_codex() { # SKILL:DIR...
	on codex || return 0
	local out
	out=$(run timeout 120 "$bin/codex" debug prompt-input 2>/dev/null || true)
	for sd in "$@"; do
		local s=${sd%%:*} d=${sd#*:}
		if grep -q -- "- $s: " <<<"$out" && grep -qF -- "\`$d\`" <<<"$out"; then ok "codex lists $s from $d"; else bad "codex does not list $s from $d"; fi
	done
}

lists_opencode() { # SKILL:DIR...
	on opencode || return 0
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
	on opencode || return 0
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
lists_claude "conf-claude:$home/.claude/skills"
lists_codex "conf-codex:$home/.codex/skills" "conf-shared:$home/.agents/skills" "conf-project:$proj/.agents/skills"
lists_opencode "conf-opencode:$home/.config/opencode/skills" "conf-shared:$home/.agents/skills" \
	"conf-project:$proj/.agents/skills" "conf-claude:$home/.claude/skills"

scenario moved CLAUDE_CONFIG_DIR="$tmp/moved/claude-config" CODEX_HOME="$tmp/moved/codex-home" XDG_CONFIG_HOME="$tmp/moved/xdg"
install conf-claude --host claude
install conf-codex --host codex
install conf-opencode --host opencode
lists_claude "conf-claude:$tmp/moved/claude-config/skills"
lists_codex "conf-codex:$tmp/moved/codex-home/skills"
lists_opencode "conf-opencode:$tmp/moved/xdg/opencode/skills"

if want relative; then
	scenario relative CLAUDE_CONFIG_DIR=rel/claude CODEX_HOME=rel/codex XDG_CONFIG_HOME=rel/xdg
	install conf-claude --host claude
	install conf-codex --host codex
	install conf-opencode --host opencode
	lists_claude "conf-claude:$proj/rel/claude/skills"
	lists_codex "conf-codex:$proj/rel/codex/skills"
	lists_opencode "conf-opencode:$proj/rel/xdg/opencode/skills"
fi

# A literal "~" (quoted, so no shell expanded it): the hosts read it as a
# directory named "~" under the working directory, and skillpm writes there.
if want tilde; then
	scenario tilde 'CLAUDE_CONFIG_DIR=~/tc' 'CODEX_HOME=~/tx' 'XDG_CONFIG_HOME=~/tg'
	install conf-claude --host claude
	install conf-codex --host codex
	install conf-opencode --host opencode
	lists_claude "conf-claude:$proj/~/tc/skills"
	lists_codex "conf-codex:$proj/~/tx/skills"
	lists_opencode "conf-opencode:$proj/~/tg/opencode/skills"
fi

if want project; then
	scenario project
	install conf-claude --host claude --scope project
	install conf-codex --host codex --scope project
	install conf-opencode --host opencode --scope project
	lists_claude "conf-claude:$proj/.claude/skills"
	lists_codex "conf-codex:$proj/.codex/skills"
	lists_opencode "conf-opencode:$proj/.opencode/skills" "conf-claude:$proj/.claude/skills"
fi

# install --link: one copy in .agents/skills, a relative symlink in
# Claude's root; Codex and OpenCode read .agents/skills, so the copy serves
# them without a link. OpenCode also reads Claude's root: it must list the
# skill once (the link and its copy are one skill to it).
scenario link
install conf-link --link --host claude --host codex --host opencode
install conf-link-project --link --host claude --host codex --scope project
is_link "$home/.claude/skills/conf-link" ../../.agents/skills/conf-link
is_link "$proj/.claude/skills/conf-link-project" ../../.agents/skills/conf-link-project
lists_claude "conf-link:$home/.claude/skills" "conf-link-project:$proj/.claude/skills"
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
if on codex; then
	n=$(run timeout 120 "$bin/codex" debug prompt-input 2>/dev/null | grep -c -- "- conf-link-codex: " || true)
	if [ "$n" = 1 ]; then ok "codex lists conf-link-codex once (link and copy are one skill)"; else bad "codex lists conf-link-codex $n times"; fi
fi
lists_opencode_once conf-link-opencode "$home/.config/opencode/skills" "$home/.agents/skills"

# seen HOST: what HOST lists, one a line: the skill folders (Gemini, Amp,
# Copilot, OpenCode) or the names (Qwen Code, which shows no path).
seen() {
	case $1 in
	gemini)
		printf '{"%s": "TRUST_FOLDER"}\n' "$proj" >"$tmp/trusted.json"
		run env GEMINI_API_KEY=conformance-dummy GEMINI_CLI_TRUSTED_FOLDERS_PATH="$tmp/trusted.json" \
			timeout 120 "$bin/gemini" skills list 2>/dev/null | sed -n 's|^ *Location: *\(.*\)/SKILL\.md$|\1|p' || true
		;;
	amp)
		run env AMP_API_KEY=sgamp_conformance_dummy timeout 120 "$bin/amp" skill list 2>/dev/null | sed -n 's|^ *file://||p' || true
		;;
	copilot)
		run timeout 120 "$bin/copilot" skill list --json 2>/dev/null |
			node -e 'for (const s of JSON.parse(require("fs").readFileSync(0,"utf8"))) console.log(require("path").resolve(process.argv[1], s.path))' "$proj" 2>/dev/null || true
		;;
	qwen)
		run env OPENAI_API_KEY=conformance-dummy OPENAI_BASE_URL=http://127.0.0.1:9 \
			timeout 120 "$bin/qwen" -p hello --output-format stream-json --auth-type openai -m conformance 2>/dev/null |
			grep -a -m1 '"subtype":"init"' | node -e 'for (const c of JSON.parse(require("fs").readFileSync(0,"utf8")).slash_commands||[]) console.log(c)' 2>/dev/null || true
		;;
	opencode)
		run timeout 120 "$bin/opencode" debug skill 2>/dev/null |
			node -e 'for (const s of JSON.parse(require("fs").readFileSync(0,"utf8"))) console.log(s.location.replace(/\/SKILL\.md$/,""))' 2>/dev/null || true
		;;
	esac
}

# expect HOST lists|omits ENTRY...: each ENTRY (a folder, or a name for
# Qwen) is, or is not, in what HOST lists.
expect() {
	local h=$1 mode=$2 out e
	shift 2
	on "$h" || return 0
	out=$(seen "$h")
	for e in "$@"; do
		if grep -qxF -- "$e" <<<"$out"; then
			if [ "$mode" = lists ]; then ok "$h lists $e"; else bad "$h still lists $e"; fi
		else
			if [ "$mode" = omits ]; then ok "$h omits $e"; else bad "$h does not list $e"; fi
		fi
	done
}

for s in conf-gemini conf-amp conf-copilot conf-qwen conf-gemini-p conf-amp-p conf-copilot-p conf-qwen-p conf-shared4; do skill "$s"; done

scenario default4
install conf-gemini --host gemini
install conf-amp --host amp
install conf-copilot --host copilot
install conf-qwen --host qwen
install conf-gemini-p --host gemini --scope project
install conf-amp-p --host amp --scope project
install conf-copilot-p --host copilot --scope project
install conf-qwen-p --host qwen --scope project
install conf-shared4 --host agents
expect gemini lists "$home/.gemini/skills/conf-gemini" "$proj/.agents/skills/conf-gemini-p" "$home/.agents/skills/conf-shared4"
expect amp lists "$home/.config/agents/skills/conf-amp" "$proj/.agents/skills/conf-amp-p" "$home/.agents/skills/conf-shared4"
expect copilot lists "$home/.copilot/skills/conf-copilot" "$proj/.agents/skills/conf-copilot-p" "$home/.agents/skills/conf-shared4"
expect qwen lists conf-qwen conf-qwen-p conf-shared4
if [ -f "$proj/.qwen/skills/conf-qwen-p/SKILL.md" ]; then ok "qwen project install in .qwen/skills"; else bad "qwen project install not in .qwen/skills"; fi

# The variables, absolute: GEMINI_CLI_HOME moves .gemini and .agents,
# COPILOT_HOME moves Copilot's root and stops ~/.agents/skills, QWEN_HOME
# moves Qwen's, and Amp ignores XDG_CONFIG_HOME.
m=$tmp/moved4
scenario moved4 GEMINI_CLI_HOME="$m/gh" COPILOT_HOME="$m/ch" QWEN_HOME="$m/qh" XDG_CONFIG_HOME="$m/xdg"
install conf-gemini --host gemini
install conf-amp --host amp
install conf-copilot --host copilot
install conf-qwen --host qwen
install conf-shared4 --host agents
expect gemini lists "$m/gh/.gemini/skills/conf-gemini"
expect gemini omits "$home/.agents/skills/conf-shared4"
expect amp lists "$home/.config/agents/skills/conf-amp" "$home/.agents/skills/conf-shared4"
expect copilot lists "$m/ch/skills/conf-copilot"
expect copilot omits "$home/.agents/skills/conf-shared4"
expect qwen lists conf-qwen conf-shared4
if [ -f "$m/qh/skills/conf-qwen/SKILL.md" ]; then ok "qwen install in \$QWEN_HOME/skills"; else bad "qwen install not in \$QWEN_HOME/skills"; fi

if want relative4; then
	scenario relative4 GEMINI_CLI_HOME=rel/g COPILOT_HOME=rel/c QWEN_HOME=rel/q
	install conf-gemini --host gemini
	install conf-copilot --host copilot
	install conf-qwen --host qwen
	expect gemini lists "$proj/rel/g/.gemini/skills/conf-gemini"
	expect copilot lists "$proj/rel/c/skills/conf-copilot"
	expect qwen lists conf-qwen
	if [ -f "$proj/rel/q/skills/conf-qwen/SKILL.md" ]; then ok "qwen install in ./rel/q/skills"; else bad "qwen install not in ./rel/q/skills"; fi
fi

# A literal "~": Gemini CLI and Copilot take it as a directory named "~"
# under the working directory; Qwen Code expands it to the home directory.
if want tilde4; then
	scenario tilde4 'GEMINI_CLI_HOME=~/tg' 'COPILOT_HOME=~/tc' 'QWEN_HOME=~/tq'
	install conf-gemini --host gemini
	install conf-copilot --host copilot
	install conf-qwen --host qwen
	expect gemini lists "$proj/~/tg/.gemini/skills/conf-gemini"
	expect copilot lists "$proj/~/tc/skills/conf-copilot"
	expect qwen lists conf-qwen
	if [ -f "$home/tq/skills/conf-qwen/SKILL.md" ]; then ok "qwen install in ~/tq/skills (expanded)"; else bad "qwen install not in ~/tq/skills"; fi
fi

# Lifecycle: install, update, remove a published skill with a file other
# than SKILL.md and an executable script, for every host at once.
life() { # VERSION: the conf-life source at VERSION, published to $tmp/bundle
	mkdir -p "$tmp/src/conf-life/scripts"
	printf -- '---\nname: conf-life\ndescription: Conformance lifecycle skill, version %s.\nversion: %s\nmetadata:\n  gaia:\n    permissions: [shell:execute]\n---\nRun scripts/hello.sh; see REFERENCE.md.\n' "$1" "$1" >"$tmp/src/conf-life/SKILL.md"
	printf '#!/bin/sh\necho hello %s\n' "$1" >"$tmp/src/conf-life/scripts/hello.sh"
	chmod 755 "$tmp/src/conf-life/scripts/hello.sh"
	echo "notes $1" >"$tmp/src/conf-life/REFERENCE.md"
	run "$tmp/skillpm" publish "$tmp/src/conf-life" --registry "oci-layout:$tmp/bundle" >/dev/null 2>&1
}
files_at() { # DIR VERSION: the skill's files landed, the script runs
	if [ "$(cat "$1/REFERENCE.md" 2>/dev/null)" = "notes $2" ] && [ -x "$1/scripts/hello.sh" ] && [ "$("$1/scripts/hello.sh")" = "hello $2" ]; then
		ok "$1 holds REFERENCE.md and an executable scripts/hello.sh of $2"
	else bad "$1 lacks REFERENCE.md or an executable scripts/hello.sh of $2"; fi
}
claude_omits() { # SKILL: Claude's init event does not name it
	on claude || return 0
	claude_run hello
	claude_stop
	if ! grep -aq '"subtype":"init"' "$tmp/claude.out"; then bad "claude printed no init event"
	elif [[ " $(claude_skills) " == *" $1 "* ]]; then bad "claude still lists $1"; else ok "claude omits $1"; fi
}
lifehosts=(--host claude --host opencode --host gemini --host amp --host copilot --host qwen)
scenario lifecycle
life 1.0.0
run "$tmp/skillpm" install conf-life --registry "oci-layout:$tmp/bundle" --allow-experimental --grant shell:execute "${lifehosts[@]}" >/dev/null
lists_claude "conf-life:$home/.claude/skills"
# OpenCode reads Claude's root too and keeps one of two skills of a name,
# whichever its scan meets first (either, run to run): listed once, from
# one of the two copies skillpm wrote.
lists_opencode_once conf-life "$home/.config/opencode/skills" "$home/.claude/skills"
expect gemini lists "$home/.gemini/skills/conf-life"
expect amp lists "$home/.config/agents/skills/conf-life"
expect copilot lists "$home/.copilot/skills/conf-life"
expect qwen lists conf-life
for d in "$home/.claude/skills" "$home/.config/opencode/skills" "$home/.gemini/skills" "$home/.config/agents/skills" "$home/.copilot/skills" "$home/.qwen/skills"; do files_at "$d/conf-life" 1.0.0; done
life 1.1.0
run "$tmp/skillpm" update conf-life --registry "oci-layout:$tmp/bundle" --allow-experimental "${lifehosts[@]}" >/dev/null
for d in "$home/.claude/skills" "$home/.config/opencode/skills" "$home/.gemini/skills" "$home/.config/agents/skills" "$home/.copilot/skills" "$home/.qwen/skills"; do files_at "$d/conf-life" 1.1.0; done
expect gemini lists "$home/.gemini/skills/conf-life"
expect amp lists "$home/.config/agents/skills/conf-life"
expect copilot lists "$home/.copilot/skills/conf-life"
if ! on copilot; then :; elif run timeout 120 "$bin/copilot" skill list --json 2>/dev/null | grep -q 'lifecycle skill, version 1.1.0'; then ok "copilot lists conf-life 1.1.0"; else bad "copilot does not list conf-life 1.1.0"; fi
lists_claude "conf-life:$home/.claude/skills"
run "$tmp/skillpm" remove conf-life "${lifehosts[@]}" >/dev/null
claude_omits conf-life
expect opencode omits "$home/.config/opencode/skills/conf-life" "$home/.claude/skills/conf-life"
expect gemini omits "$home/.gemini/skills/conf-life"
expect amp omits "$home/.config/agents/skills/conf-life"
expect copilot omits "$home/.copilot/skills/conf-life"
expect qwen omits conf-life

# Lenient: hand-made skill folders put straight into each host's user
# root (not through skillpm), one of each per host, named for it: a
# description with an unquoted ": " (len-colon), a folder whose only file
# is a lowercase skill.md (len-lower), a blank line before the opening ---
# (len-blank), and a plain skill (len-ok) that shows the host listed at
# all. The host loads each exactly when skillpm's install for that host
# (into a separate home) accepts it: lenient validation, info and install
# follow the hosts in both directions.
lenient_skill() { # KIND HOST: the folder $tmp/lenient-src/len-KIND-HOST
	local n=len-$1-$2 d=$tmp/lenient-src/len-$1-$2 f=SKILL.md lead=
	mkdir -p "$d"
	case $1 in
	lower) f=skill.md ;;
	blank) lead=$'\n' ;;
	esac
	if [ "$1" = colon ]; then
		printf -- '%s---\nname: %s\ndescription: Conformance skill %s. Use when: a host lists it.\n---\nSay hello.\n' "$lead" "$n" "$n" >"$d/$f"
	else
		printf -- '%s---\nname: %s\ndescription: Conformance skill %s.\n---\nSay hello.\n' "$lead" "$n" "$n" >"$d/$f"
	fi
}
lenient_listed() { # HOST: the skill names HOST lists, one a line
	case $1 in
	claude)
		claude_run hello
		claude_stop
		claude_skills | tr ' ' '\n'
		;;
	codex) run timeout 120 "$bin/codex" debug prompt-input 2>/dev/null | grep -o -- '- len-[a-z]*-codex: ' | sed 's/^- //; s/: $//' || true ;;
	*) seen "$1" | sed 's|.*/||' ;;
	esac
}
# A difference known and kept, HOST/KIND: why (hosts.yaml says it too).
# It is reported, and a failure once the host and skillpm agree again.
declare -A lenient_known=([amp/lower]="Amp lists a folder whose only file is a lowercase skill.md; skillpm refuses it for every host, as the others leave it out")
if want lenient; then
	scenario lenient
	declare -A lenient_root=([claude]=.claude/skills [codex]=.codex/skills [opencode]=.config/opencode/skills
		[gemini]=.gemini/skills [amp]=.config/agents/skills [copilot]=.copilot/skills [qwen]=.qwen/skills)
	for h in $hosts; do
		for k in colon lower blank ok; do
			lenient_skill "$k" "$h"
			mkdir -p "$home/${lenient_root[$h]}"
			cp -R "$tmp/lenient-src/len-$k-$h" "$home/${lenient_root[$h]}/"
		done
	done
	for h in $hosts; do
		listed=$(lenient_listed "$h")
		if ! grep -qxF "len-ok-$h" <<<"$listed"; then
			bad "$h does not list the plain len-ok-$h: its listing is not read"
			continue
		fi
		for k in colon lower blank; do
			s=len-$k-$h
			accepts=no loads=no
			if env -i HOME="$tmp/lenient/skillpm-home" PATH="$PATH" "$tmp/skillpm" install "$tmp/lenient-src/$s" --host "$h" --no-vcs --allow-experimental >/dev/null 2>&1; then accepts=yes; fi
			if grep -qxF "$s" <<<"$listed"; then loads=yes; fi
			known=${lenient_known[$h/$k]:-}
			if [ "$accepts" = "$loads" ] && [ -z "$known" ]; then ok "$h loads $s: $loads, as skillpm install --host $h says"
			elif [ "$accepts" = "$loads" ]; then bad "$h loads $s: $loads, as skillpm install --host $h says: the known difference ($known) is gone; drop it here and in hosts/hosts.yaml"
			elif [ -n "$known" ]; then ok "$h loads $s: $loads; skillpm install --host $h accepts it: $accepts (known: $known)"
			else bad "$h loads $s: $loads; skillpm install --host $h accepts it: $accepts"; fi
		done
	done
fi

# codex_prompt UNTIL PROMPT ARGS...: codex exec PROMPT with a dummy key,
# stopped (it retries the network for minutes) once the session's
# transcript under CODEX_HOME holds UNTIL. The UserPromptSubmit hook runs
# before any model call.
codex_prompt() {
	local until=$1 p=$2 pid i
	shift 2
	(cd "$proj" && exec env -i "${vars[@]}" OPENAI_API_KEY=sk-conformance-dummy \
		timeout 120 "$bin/codex" exec --skip-git-repo-check "$@" "$p") >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 600); do
		if grep -rqs "$until" "$codex_home/sessions"; then break; fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# Codex runs the runner's hooks from the hooks.json skillpm writes, once
# trusted: trusted for one run (--dangerously-bypass-hook-trust) the
# prompt hook's context is in the transcript; untrusted, Codex skips it,
# as asf hooks install says.
if on codex && want codex-hooks; then
	codex_home=$tmp/codex-hooks/codex
	scenario codex-hooks CODEX_HOME="$codex_home"
	run "$tmp/skillpm" asf hooks install --host codex --command "$tmp/skillpm" >/dev/null
	codex_prompt "The user asked to run the ASF workflow" "/asf conf-flow fix the test" --dangerously-bypass-hook-trust
	if grep -rqs "The user asked to run the ASF workflow" "$codex_home/sessions"; then ok "codex runs the asf prompt hook from $codex_home/hooks.json"; else bad "codex did not run the asf prompt hook (transcript: $(ls "$codex_home/sessions" 2>&1))"; fi
	rm -rf "$codex_home/sessions"
	# Untrusted there is no answer to wait for: wait for the turn's
	# configuration_update, which Codex records right after the prompt hooks'
	# context (seen in the trusted run's transcript).
	codex_prompt '"type":"configuration_update"' "/asf conf-flow fix the test"
	if ! grep -rqs "asf conf-flow" "$codex_home/sessions"; then bad "codex recorded no session"
	elif grep -rqs "The user asked to run the ASF workflow" "$codex_home/sessions"; then bad "codex ran an untrusted hook"; else ok "codex skips the untrusted hook until it is reviewed"; fi
fi

echo "== $checks checks, $((SECONDS - start))s"
if [ "$fail" != 0 ]; then
	echo "conformance: FAIL"
	exit 1
fi
echo "conformance: ok"
