#!/usr/bin/env bash
# Install the real parts the tests use, pinned: the distribution registry,
# the oras and cosign CLIs, staticcheck (Go module proxy), and Debian's
# headless Chromium, git and ssh-keygen (apt, as root or with sudo). Called by
# `make test` and so by .ci/run; each step is skipped when the pinned
# tool is already there, so a second run asks no registry anything.
set -euo pipefail
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
GOBIN="$(go env GOPATH)/bin"

gotool() { # binary, module@version, version-probe pattern
	local bin=$1 mod=$2 want=$3
	if [ -x "$GOBIN/$bin" ] && go version -m "$GOBIN/$bin" 2>/dev/null | grep -q "$want"; then
		return
	fi
	echo "installing $mod"
	go install "$mod"
}

gotool staticcheck honnef.co/go/tools/cmd/staticcheck@v0.8.2 'honnef.co/go/tools.*v0.8.2'
gotool registry github.com/distribution/distribution/v3/cmd/registry@v3.1.2 'distribution/v3.*v3.1.2'
gotool oras oras.land/oras/cmd/oras@v1.3.6 'oras.land/oras.*v1.3.6'
gotool cosign github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3 'cosign/v3.*v3.1.3'

# Debian packages: headless Chromium for the panel's browser test; git
# (with git http-backend) and ssh-keygen for the git source tests.
pkgs=()
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	pkgs+=(chromium)
fi
if ! command -v git >/dev/null 2>&1; then
	pkgs+=(git)
fi
if ! command -v ssh-keygen >/dev/null 2>&1; then
	pkgs+=(openssh-client)
fi
if [ ${#pkgs[@]} -gt 0 ]; then
	sudo=
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo=sudo
		else
			echo "${pkgs[*]} missing and this user cannot install them: run 'apt-get install -y ${pkgs[*]}' as root" >&2
			exit 1
		fi
	fi
	echo "installing Debian's ${pkgs[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
