#!/usr/bin/env bash
# Install the real parts the tests use, pinned. Called by `make test` (core)
# and `make interop` (cosign), and so by .ci/run; each tool is skipped when
# the pinned version is already there, so a second run asks no registry
# anything.
#
#   scripts/test-tools.sh [core]   staticcheck, the distribution registry and
#                                  the oras CLI (Go module proxy, built side by
#                                  side), Debian's headless Chromium, git and
#                                  ssh-keygen (apt, as root or with sudo)
#   scripts/test-tools.sh cosign   the cosign CLI, for the interop tests: it
#                                  pulls in hundreds of modules and takes half
#                                  an hour to build on a fresh 2-core machine,
#                                  so make test does not wait for it
#   scripts/test-tools.sh all      both
#
# Each tool prints one line when it starts and one when it is done, with the
# seconds it took; the go install output goes to $GOPATH/bin/.tools-NAME.log
# and is printed only when the install fails.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
GOBIN="$(go env GOPATH)/bin"
mkdir -p "$GOBIN"

# have BIN PATTERN: the pinned version of BIN is installed.
have() {
	[ -x "$GOBIN/$1" ] && go version -m "$GOBIN/$1" 2>/dev/null | grep -q "$2"
}

# gotool BIN MODULE@VERSION PATTERN: go install it unless have says so.
gotool() {
	local bin=$1 mod=$2 want=$3 start log
	if have "$bin" "$want"; then
		return
	fi
	start=$SECONDS
	log="$GOBIN/.tools-$bin.log"
	echo "tools: building $mod from source"
	if ! go install "$mod" >"$log" 2>&1; then
		echo "tools: building $mod failed after $((SECONDS - start)) s:" >&2
		cat "$log" >&2
		return 1
	fi
	echo "tools: $bin ready after $((SECONDS - start)) s"
}

# parallel CMD...: each argument is one gotool call, run side by side (the
# downloads of one overlap the compiles of another); fails if any fails.
parallel() {
	local pids=() rc=0 p
	for c in "$@"; do
		eval "gotool $c" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	return $rc
}

core() {
	parallel \
		"staticcheck honnef.co/go/tools/cmd/staticcheck@v0.8.2 'honnef.co/go/tools.*v0.8.2'" \
		"registry github.com/distribution/distribution/v3/cmd/registry@v3.1.2 'distribution/v3.*v3.1.2'" \
		"oras oras.land/oras/cmd/oras@v1.3.6 'oras.land/oras.*v1.3.6'"
	debian
}

cosign() {
	gotool cosign github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3 'cosign/v3.*v3.1.3'
}

# Debian packages: headless Chromium for the panel's browser test; git
# (with git http-backend) and ssh-keygen for the git source tests.
debian() {
	local pkgs=() sudo=
	if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
		pkgs+=(chromium)
	fi
	if ! command -v git >/dev/null 2>&1; then
		pkgs+=(git)
	fi
	if ! command -v ssh-keygen >/dev/null 2>&1; then
		pkgs+=(openssh-client)
	fi
	if [ ${#pkgs[@]} -eq 0 ]; then
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo=sudo
		else
			echo "${pkgs[*]} missing and this user cannot install them: run 'apt-get install -y ${pkgs[*]}' as root" >&2
			exit 1
		fi
	fi
	local start=$SECONDS
	echo "tools: installing Debian's ${pkgs[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null
	echo "tools: ${pkgs[*]} ready after $((SECONDS - start)) s"
}

case "${1:-core}" in
core) core ;;
cosign) cosign ;;
all) core && cosign ;;
*)
	echo "usage: $0 [core|cosign|all]" >&2
	exit 2
	;;
esac
