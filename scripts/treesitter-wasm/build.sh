#!/usr/bin/env bash
# build.sh compiles tree-sitter's C runtime, the Python, JavaScript,
# TypeScript and TSX grammars and shim.c into one WebAssembly module,
# pkg/audit/internal/treesitter/treesitter.wasm, and writes its SHA-256 beside it.
# The Go side (pkg/audit/internal/treesitter) embeds the module and runs it with
# wazero, so skillpm builds with CGO_ENABLED=0.
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
out="$repo/pkg/audit/internal/treesitter/treesitter.wasm"
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
compile shim.o "$here/shim.c" "$rt/include"
compile py_parser.o "$py/src/parser.c" "$py/src"
compile py_scanner.o "$py/src/scanner.c" "$py/src"
compile js_parser.o "$js/src/parser.c" "$js/src"
compile js_scanner.o "$js/src/scanner.c" "$js/src"
compile ts_parser.o "$ts/typescript/src/parser.c" "$ts/typescript/src"
compile ts_scanner.o "$ts/typescript/src/scanner.c" "$ts/typescript/src"
compile tsx_parser.o "$ts/tsx/src/parser.c" "$ts/tsx/src"
compile tsx_scanner.o "$ts/tsx/src/scanner.c" "$ts/tsx/src"

# A reactor (no main): the host calls _initialize once. The stack comes
# first in memory so an overflow traps instead of overwriting data.
"$CC" --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 \
	-Wl,--stack-first -Wl,-z,stack-size=1048576 -Wl,--strip-all \
	-Wl,--export=malloc -Wl,--export=free \
	-o "$work/treesitter.wasm" \
	"$work/runtime.o" "$work/shim.o" \
	"$work/py_parser.o" "$work/py_scanner.o" "$work/js_parser.o" "$work/js_scanner.o" \
	"$work/ts_parser.o" "$work/ts_scanner.o" "$work/tsx_parser.o" "$work/tsx_scanner.o"

# The module redistributes these sources: keep their licences beside it.
notices() {
	echo "treesitter.wasm is built by scripts/treesitter-wasm/build.sh from the"
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

sum=$(cd "$work" && sha256sum treesitter.wasm | cut -d' ' -f1)
if $check; then
	got=$(cut -d' ' -f1 "$out.sha256")
	[[ $sum == "$got" ]] || die "rebuilt module $sum differs from committed $got"
	cmp -s "$work/treesitter.wasm" "$out" || die "rebuilt module differs from $out"
	cmp -s "$work/NOTICES.txt" "$(dirname "$out")/NOTICES.txt" || die "NOTICES.txt differs"
	echo "treesitter.wasm reproduced: $sum"
	exit 0
fi
cp "$work/treesitter.wasm" "$out"
cp "$work/NOTICES.txt" "$(dirname "$out")/NOTICES.txt"
echo "$sum  treesitter.wasm" >"$out.sha256"
echo "wrote $out ($sum)"
