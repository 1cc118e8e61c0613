#!/usr/bin/env bash
# build.sh compiles tree-sitter's C runtime and shim.c with each of the
# Python, JavaScript, TypeScript and TSX grammars into one WebAssembly
# module per grammar, pkg/audit/internal/treesitter/treesitter-LANG.wasm,
# and writes their SHA-256 to treesitter.wasm.sha256 beside them. One module
# per grammar, so that a process compiles only the grammars of the files it
# parses (a skill with Python scripts does not pay for TypeScript's, the
# largest). The Go side (pkg/audit/internal/treesitter) embeds the modules
# and runs them with wazero, so skillpm builds with CGO_ENABLED=0.
#
# Reproducible: the C sources are the Go modules below, fetched by version
# through the Go module proxy (checked against the checksum database);
# fixed flags, no debug info, source paths mapped to fixed names, no
# timestamps. Running it twice gives identical bytes (build.sh -check
# rebuilds into a temporary directory and compares with the committed
# file).
#
# Toolchain (Debian 12 packages; apt-get install clang-19 lld-19
# libclang-rt-19-dev-wasm32 wasi-libc):
#   clang-19 / lld-19 / libclang-rt-19-dev-wasm32  1:19.1.7-3~deb12u1
#   wasi-libc                                      0.0~git20220510.9886d3d-2
set -euo pipefail

# Sources: the runtime from the Go binding's module (it vendors the C
# library), the grammars from their modules' src directories, at the
# versions the cgo bindings used. The newer python and javascript v0.25.0
# were tried: they fix none of the false syntax errors (PEP 701 f-strings
# already parse; a bare "&" in JSX text fails in both, see
# reparseJSXText), so there is no reason to move.
RUNTIME=github.com/tree-sitter/go-tree-sitter@v0.25.0
PYTHON=github.com/tree-sitter/tree-sitter-python@v0.23.6
JAVASCRIPT=github.com/tree-sitter/tree-sitter-javascript@v0.23.1
TYPESCRIPT=github.com/tree-sitter/tree-sitter-typescript@v0.23.2

TOOLCHAIN_VERSION="1:19.1.7-3~deb12u1"
WASI_LIBC_VERSION="0.0~git20220510.9886d3d-2"
CC=${CC_WASM:-clang-19}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
outdir="$repo/pkg/audit/internal/treesitter"
check=false
if [[ ${1:-} == -check ]]; then
	check=true
fi

die() { echo "build.sh: $*" >&2; exit 1; }

for pkg in clang-19:$TOOLCHAIN_VERSION lld-19:$TOOLCHAIN_VERSION \
	libclang-rt-19-dev-wasm32:$TOOLCHAIN_VERSION wasi-libc:$WASI_LIBC_VERSION; do
	name=${pkg%%:*} want=${pkg#*:}
	have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) ||
		die "$name is not installed (apt-get install $name=$want)"
	[[ $have == "$want" ]] || die "$name is $have, want $want: the bytes would differ"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Download outside any module so go.mod is neither read nor changed.
moddir() {
	(cd "$work" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "$1") |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}
rt=$(moddir "$RUNTIME")
py=$(moddir "$PYTHON")
js=$(moddir "$JAVASCRIPT")
ts=$(moddir "$TYPESCRIPT")
[[ -n $rt && -n $py && -n $js && -n $ts ]] || die "go mod download failed"
modcache=$(go env GOMODCACHE)

# -O2: tree-sitter's parse is most of a cold audit's CPU, and -O2 makes
# it about a fifth faster than -Oz (126 KB of Python: 0.20 s against
# 0.26 s). -Oz's smaller code compiled faster, but on linux/amd64 the
# binary ships the compiled code (precompiled.go), and elsewhere each
# machine compiles once into its cache.
cflags=(
	--target=wasm32-wasi --sysroot=/usr
	-std=c11 -O2 -g0 -fvisibility=hidden
	-D_POSIX_C_SOURCE=200112L -D_DEFAULT_SOURCE -DHAVE_ENDIAN_H -DNDEBUG
	"-ffile-prefix-map=$modcache=/gomodcache" "-ffile-prefix-map=$here=/shim"
	-Wno-unused-but-set-variable
)

compile() { # out.o src.c include-dirs...
	local o=$1 c=$2
	shift 2
	local inc=()
	for d in "$@"; do inc+=("-I$d"); done
	"$CC" "${cflags[@]}" "${inc[@]}" -c "$c" -o "$work/$o"
}

compile runtime.o "$rt/src/lib.c" "$rt/include" "$rt/src"
compile py_parser.o "$py/src/parser.c" "$py/src"
compile py_scanner.o "$py/src/scanner.c" "$py/src"
compile js_parser.o "$js/src/parser.c" "$js/src"
compile js_scanner.o "$js/src/scanner.c" "$js/src"
compile ts_parser.o "$ts/typescript/src/parser.c" "$ts/typescript/src"
compile ts_scanner.o "$ts/typescript/src/scanner.c" "$ts/typescript/src"
compile tsx_parser.o "$ts/tsx/src/parser.c" "$ts/tsx/src"
compile tsx_scanner.o "$ts/tsx/src/scanner.c" "$ts/tsx/src"

# module NAME SK_LANG GRAMMAR-PREFIX: treesitter-NAME.wasm, the runtime,
# the shim for grammar number SK_LANG (as the Go side numbers them) and the
# grammar. A reactor (no main): the host calls _initialize once. The
# stack comes first in memory so an overflow traps instead of overwriting
# data.
modules=(python javascript typescript tsx)
module() {
	local name=$1 lang=$2 g=$3
	cflags+=("-DSK_LANG=$lang")
	compile "shim_$name.o" "$here/shim.c" "$rt/include"
	unset 'cflags[-1]'
	"$CC" --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 \
		-Wl,--stack-first -Wl,-z,stack-size=1048576 -Wl,--strip-all \
		-Wl,--export=malloc -Wl,--export=free \
		-o "$work/treesitter-$name.wasm" \
		"$work/runtime.o" "$work/shim_$name.o" "$work/${g}_parser.o" "$work/${g}_scanner.o"
}
module python 0 py
module javascript 1 js
module typescript 2 ts
module tsx 3 tsx

# The module redistributes these sources: keep their licences beside it.
notices() {
	echo "treesitter-*.wasm are built by scripts/treesitter-wasm/build.sh from the"
	echo "sources below, linked with wasi-libc $WASI_LIBC_VERSION and compiler-rt"
	echo "$TOOLCHAIN_VERSION. Their licences follow."
	for m in "$RUNTIME:$rt" "$PYTHON:$py" "$JAVASCRIPT:$js" "$TYPESCRIPT:$ts"; do
		printf '\n==== %s (tree-sitter runtime or grammar)\n\n' "${m%%:*}"
		cat "${m#*:}/LICENSE"
	done
	printf '\n==== wasi-libc %s (Debian copyright file)\n\n' "$WASI_LIBC_VERSION"
	cat /usr/share/doc/wasi-libc/copyright
}
notices >"$work/NOTICES.txt"

files=()
for m in "${modules[@]}"; do files+=("treesitter-$m.wasm"); done
(cd "$work" && sha256sum "${files[@]}") >"$work/treesitter.wasm.sha256"
if $check; then
	for m in "${modules[@]}"; do
		cmp -s "$work/treesitter-$m.wasm" "$outdir/treesitter-$m.wasm" || die "rebuilt treesitter-$m.wasm differs from the committed one"
	done
	cmp -s "$work/treesitter.wasm.sha256" "$outdir/treesitter.wasm.sha256" || die "treesitter.wasm.sha256 differs"
	cmp -s "$work/NOTICES.txt" "$outdir/NOTICES.txt" || die "NOTICES.txt differs"
	echo "treesitter modules reproduced:"
	cat "$work/treesitter.wasm.sha256"
	exit 0
fi
for m in "${modules[@]}"; do cp "$work/treesitter-$m.wasm" "$outdir/"; done
cp "$work/NOTICES.txt" "$work/treesitter.wasm.sha256" "$outdir/"
rm -f "$outdir/treesitter.wasm"
echo "wrote $outdir:"
cat "$work/treesitter.wasm.sha256"
