#!/usr/bin/env bash
# demo-sign.sh: sign the example skills in the embedded registry with a
# publisher key, promote one with an auditor key, and show the tiers a demo
# trust policy gives them (publisher: community, auditor: verified).
#
# SKILLPM is the skillpm binary (default: bin/skillpm). Sourced by
# scripts/demo.sh after demo-registry.sh, it signs what that published, in
# the demo's home, and leaves the policy at $XDG_CONFIG_HOME/skillpm/policy.yaml
# for the demo parts after it. Run on its own, it works in a temporary
# directory and publishes the examples first (publishing is idempotent).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SKILLPM=${SKILLPM:-$repo/bin/skillpm}
case $SKILLPM in /*) ;; */*) SKILLPM=$PWD/$SKILLPM ;; esac
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	sign_tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillpm-sign-demo.XXXXXX")
	trap 'rm -rf "$sign_tmp"' EXIT
	export HOME=$sign_tmp/home XDG_CONFIG_HOME=$sign_tmp/config XDG_DATA_HOME=$sign_tmp/data XDG_CACHE_HOME=$sign_tmp/cache
fi
sign_home=$HOME/skillpm-sign-demo
mkdir -p "$sign_home"
cd "$repo"

show() { printf '\n$ skillpm'; printf ' %q' "$@"; printf '\n'; }
run() { show "$@"; "$SKILLPM" "$@" 2>&1; }
# refused runs a command that must exit with status $1 (a trust refusal).
refused() {
	local want=$1 rc=0
	shift
	show "$@"
	"$SKILLPM" "$@" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "demo-sign: expected exit $want, got $rc" >&2
		return 1
	fi
	echo "(exit $rc)"
}

# The publisher's key is passphrase-protected (SKILLPM_PASSWORD, as cosign's
# COSIGN_PASSWORD); the auditor's is an Ed25519 key without one.
export SKILLPM_PASSWORD=demo-publisher-passphrase
printf '\n(SKILLPM_PASSWORD holds the publisher key'"'"'s passphrase)\n'
[ -f "$sign_home/publisher.key" ] || run keygen -o "$sign_home/publisher"
[ -f "$sign_home/auditor.key" ] || run keygen -o "$sign_home/auditor" --alg ed25519 --no-passphrase

policy=$XDG_CONFIG_HOME/skillpm/policy.yaml
mkdir -p "$(dirname "$policy")"
cat >"$policy" <<EOF
# Demo trust policy: the publisher's signature makes an embedded skill
# community; the auditor's countersignature (skillpm promote) makes any
# skill verified.
version: 1
policies:
  - name: demo-publisher
    scopes: ["embedded/*"]
    tier: community
    identities:
      - key: $sign_home/publisher.pub
  - name: demo-auditor
    scopes: ["*"]
    tier: verified
    identities:
      - key: $sign_home/auditor.pub
EOF
printf '\n$ cat %s\n' "$policy"
cat "$policy"
run policy check "$policy"

# Sign every published example (publish again is a no-op for the version;
# --sign attaches the signature as an OCI referrer, cosign's format).
for dir in testdata/skills/* testdata/asf/*; do
	[ -f "$dir/SKILL.md" ] || continue
	grep -q '^version:' "$dir/SKILL.md" || continue
	run publish "$dir" --sign --key "$sign_home/publisher.key"
done

# web-research claims verified; the publisher's key earns community: the
# claim is capped, with a warning.
run verify web-research@1.0.0
refused 5 verify web-research@1.0.0 --min-tier verified

# The auditor countersigns: verified wherever the policy trusts the auditor.
run promote web-research@1.0.0 --key "$sign_home/auditor.key"
run verify web-research@1.0.0 --min-tier verified

# A new version has a new digest: unsigned until someone signs it.
next=$sign_home/next/web-search
rm -rf "$next"
mkdir -p "$(dirname "$next")"
cp -R testdata/skills/web-search "$next"
sed -i.bak 's/^version: .*/version: 1.0.1/' "$next/SKILL.md" && rm -f "$next/SKILL.md.bak"
run publish "$next" --no-vcs
refused 5 verify web-search@1.0.1
run sign web-search@1.0.1 --key "$sign_home/publisher.key"
run verify web-search@1.0.1
unset SKILLPM_PASSWORD
