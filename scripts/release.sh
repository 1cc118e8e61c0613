#!/usr/bin/env bash
# Build a reproducible skillpm release into bin/release (or $RELEASE_DIR):
#
#   skillpm-{linux,darwin,windows}-{amd64,arm64}[.exe]  static (CGO_ENABLED=0)
#   skillpm.cdx.json       CycloneDX SBOM of the Go module graph (cyclonedx-gomod)
#   image/                 OCI image layout: linux/amd64 + arm64 index, non-root,
#                          skillpm as entrypoint (internal/cmd/release-image)
#   SHA256SUMS             sha256sum -c format, over every file above (image/ file by file)
#   SHA256SUMS.sig         base64 signature of SHA256SUMS by `skillpm sign-blob`
#   release.pub            the public key that verifies it
#
# Same commit, same Go toolchain => the same bytes: -trimpath, an empty
# build id, no VCS stamping by the go command (-buildvcs=false) but the
# version, commit, commit time and dirty flag stamped with -ldflags -X
# from git, and no archives (so no file modification times).
#
# The signing key is $RELEASE_KEY (a cosign-format private key, passphrase
# in $SKILLPM_PASSWORD or $COSIGN_PASSWORD); without it a fresh Ed25519
# key pair is made for this run and thrown away, its public half written to
# release.pub. An Ed25519 signature is deterministic, so with the same
# RELEASE_KEY two runs give identical files, signature included; an
# ECDSA RELEASE_KEY gives a different (equally valid) signature each run.
#
# Usage: scripts/release.sh            build everything
#        scripts/release.sh check      build linux/amd64 twice and compare
#                                      (make test runs this; cheap)
#        scripts/release.sh verify DIR sha256sum -c + cosign verify-blob +
#                                      skillpm verify-blob over DIR
set -euo pipefail
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0 GOFLAGS=-buildvcs=false
cd "$(dirname "$0")/.."

# cyclonedx-gomod, pinned; run with `go run`, so it is built from the Go
# module proxy like any dependency.
SBOM_TOOL=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
# RELEASE_TARGETS narrows the platforms (a quick local run); the image
# needs both linux targets.
TARGETS=${RELEASE_TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

# stamp sets VERSION, REVISION, CREATED (the commit time) and LDFLAGS, the
# -ldflags of a release build, from git.
stamp() {
	local dirty=false
	REVISION=$(git rev-parse HEAD)
	CREATED=$(TZ=UTC git show -s --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD)
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		dirty=true
	fi
	VERSION=${RELEASE_VERSION:-}
	if [ -z "$VERSION" ]; then
		VERSION=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null || true)
	fi
	if [ -z "$VERSION" ]; then
		# The pseudo-version the go command would give this commit.
		VERSION="v0.0.0-$(TZ=UTC git show -s --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)-${REVISION:0:12}"
	fi
	if [ "$dirty" = true ]; then
		VERSION="$VERSION+dirty"
	fi
	local stamps=github.com/skillpm/skillpm/internal/buildinfo
	LDFLAGS="-s -w -buildid= -X $stamps.version=$VERSION -X $stamps.commit=$REVISION -X $stamps.commitTime=$CREATED -X $stamps.modified=$dirty"
}

# build GOOS/GOARCH OUTFILE
build() {
	local goos=${1%/*} goarch=${1#*/}
	GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "$LDFLAGS" -o "$2" ./cmd/skillpm
}

exe() { case $1 in windows/*) echo .exe ;; esac; }

release() {
	local out=${RELEASE_DIR:-bin/release} tmp
	stamp
	rm -rf "$out"
	mkdir -p "$out"
	for t in $TARGETS; do
		echo "build $t"
		build "$t" "$out/skillpm-${t%/*}-${t#*/}$(exe "$t")"
	done
	echo "sbom"
	# -json: CycloneDX JSON; -noserial and -notimestamp keep a random serial
	# and today's date out of it (cyclonedx-gomod ignores SOURCE_DATE_EPOCH).
	go run "$SBOM_TOOL" app -json -noserial -notimestamp -licenses -main cmd/skillpm -output "$out/skillpm.cdx.json" .
	echo "image"
	# An OCI tag may not hold "+": the layout's ref name uses "-dirty".
	go run ./internal/cmd/release-image -bin "$out" -out "$out/image" \
		-version "${VERSION/+/-}" -revision "$REVISION" -created "$CREATED"
	(cd "$out" && sha256sum -- skillpm-* skillpm.cdx.json $(find image -type f | LC_ALL=C sort) >SHA256SUMS)

	# Sign SHA256SUMS with the binary just built for this machine, so the
	# release signs itself; cross-built elsewhere, build one for here.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	local self="$out/skillpm-$(go env GOHOSTOS)-$(go env GOHOSTARCH)$(exe "$(go env GOHOSTOS)/")"
	local key=${RELEASE_KEY:-}
	if [ -z "$key" ]; then
		SKILLPM_PASSWORD= "$self" keygen --alg ed25519 --no-passphrase --output-prefix "$tmp/release" >/dev/null
		key=$tmp/release.key
		cp "$tmp/release.pub" "$out/release.pub"
		echo "signed with a key made for this run (set RELEASE_KEY to use yours)"
	else
		if [ -z "${RELEASE_PUB:-}" ]; then
			echo "RELEASE_KEY is set: set RELEASE_PUB to its public key file too" >&2
			exit 2
		fi
		cp "$RELEASE_PUB" "$out/release.pub"
	fi
	"$self" sign-blob --quiet --key "$key" --output-signature "$out/SHA256SUMS.sig" "$out/SHA256SUMS"
	verify "$out"
	echo "release $VERSION in $out"
}

# verify DIR: what a user runs (README "Install").
verify() {
	local dir=$1 cosign
	(cd "$dir" && sha256sum --quiet -c SHA256SUMS)
	cosign=$(command -v cosign || echo "$(go env GOPATH)/bin/cosign")
	if [ ! -x "$cosign" ]; then
		echo "cosign is missing: go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3" >&2
		exit 1
	fi
	"$cosign" verify-blob --key "$dir/release.pub" --signature "$dir/SHA256SUMS.sig" \
		--insecure-ignore-tlog=true "$dir/SHA256SUMS" 2>&1 | grep -v '^WARNING'
	"$dir/skillpm-$(go env GOHOSTOS)-$(go env GOHOSTARCH)$(exe "$(go env GOHOSTOS)/")" \
		verify-blob --key "$dir/release.pub" --signature "$dir/SHA256SUMS.sig" "$dir/SHA256SUMS"
}

# check: two release builds of one target, each with its own stamp, are
# byte-identical. They share the build cache, so this costs a link and
# catches what varies per run (a date or a random value in the stamp or
# the link, an output path leaking in); `make release` twice, each run
# with a fresh GOCACHE, is the full check.
check() {
	local tmp t=linux/amd64
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	stamp
	build "$t" "$tmp/a"
	stamp
	mkdir "$tmp/other"
	build "$t" "$tmp/other/b"
	mv "$tmp/other/b" "$tmp/b"
	if ! cmp "$tmp/a" "$tmp/b"; then
		echo "release build of $t is not reproducible" >&2
		exit 1
	fi
	echo "reproducible: two builds of $t are identical ($(sha256sum <"$tmp/a" | cut -c1-16)…)"
}

case ${1:-release} in
release) release ;;
check) check ;;
verify) verify "${2:?verify DIR}" ;;
*)
	echo "usage: $0 [release|check|verify DIR]" >&2
	exit 2
	;;
esac
