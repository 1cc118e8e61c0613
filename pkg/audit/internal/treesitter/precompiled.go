package treesitter

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/skillpm/skillpm/internal/atomicfile"
)

// The compiled code of the modules, as wazero's compilation cache holds
// it, can ship inside the binary for the platform it was made on
// (precompiled_GOOS_GOARCH.go embeds precompiled/GOOS_GOARCH, which
// `go run ./pkg/audit/internal/treesitter/precompile` writes): a process
// whose cache does not hold a grammar yet (a fresh machine, a CI runner)
// then writes the entry there and loads it, instead of spending most of a
// second of CPU compiling it. The bytes are the binary's own, as the
// modules are; an entry is written only for the module, wazero version,
// architecture and OS it was made for, and wazero still checks it (and
// its CPU features, part of the entry's name) when it loads it.

// PrecompiledIndex is the name of the index file in a precompiled
// directory: one line per grammar, "MODULE-FILE MODULE-SHA256 WAZERO-DIR
// ENTRY ENTRY-SHA256", WAZERO-DIR and ENTRY being the entry's path in
// wazero's cache directory.
const PrecompiledIndex = "index.txt"

// precompiledEntry is one line of the index.
type precompiledEntry struct {
	moduleFile, moduleSum, wazeroDir, entry, entrySum string
}

// readPrecompiledIndex reads the index of fsys (nil when there is none).
func readPrecompiledIndex(fsys fs.FS) ([]precompiledEntry, error) {
	if fsys == nil {
		return nil, nil
	}
	b, err := fs.ReadFile(fsys, PrecompiledIndex)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []precompiledEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 fields, have %d", PrecompiledIndex, n, len(f))
		}
		out = append(out, precompiledEntry{f[0], f[1], f[2], f[3], f[4]})
	}
	return out, sc.Err()
}

// wazeroCacheDir is the directory wazero keeps its entries in below a
// compilation cache directory: "wazero-VERSION-GOARCH-GOOS", VERSION
// being wazero's module version as the build records it ("dev" when it
// does not, as in tests), found the way wazero finds it.
func wazeroCacheDir() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if strings.Contains(d.Path, "github.com/tetratelabs/wazero") {
				v = d.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = info.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	return "wazero-" + v + "-" + runtime.GOARCH + "-" + runtime.GOOS
}

// seedCompileCache writes grammar l's precompiled entry from fsys into
// cacheDir (a grammar's compilation cache, see compileCacheDir) when fsys
// has one for this module and this wazero and cacheDir does not hold it
// yet. The SHA-256 file goes first, so that a concurrent process's check
// (checkCompileCache) never meets the entry without it. Anything amiss
// (no entry, a mismatch, a write that fails) only leaves the compile to
// happen as before.
func seedCompileCache(fsys fs.FS, cacheDir string, l Language) {
	index, err := readPrecompiledIndex(fsys)
	if err != nil || len(index) == 0 {
		return
	}
	sum, wdir := moduleSum(l), wazeroCacheDir()
	for _, e := range index {
		if e.moduleFile != moduleFiles[l] || e.moduleSum != hex.EncodeToString(sum[:]) || e.wazeroDir != wdir ||
			!fs.ValidPath(e.entry) || strings.Contains(e.entry, "/") {
			continue
		}
		dst := filepath.Join(cacheDir, e.wazeroDir, e.entry)
		if _, err := os.Lstat(dst); err == nil {
			return
		}
		b, err := fs.ReadFile(fsys, path.Base(e.moduleFile)+".bin")
		if err != nil {
			return
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != e.entrySum {
			return
		}
		if os.MkdirAll(filepath.Dir(dst), 0o700) != nil ||
			atomicfile.Write(dst+sumSuffix, []byte(e.entrySum+"\n"), 0o600) != nil ||
			atomicfile.Write(dst, b, 0o600) != nil {
			os.Remove(dst + sumSuffix)
		}
		return
	}
}

// WritePrecompiled compiles every grammar's module through a fresh
// compilation cache and writes the entries wazero made, with their index,
// into dir: what precompiled_GOOS_GOARCH.go embeds for the platform this
// runs on. The compile is deterministic, so writing it again gives the
// same bytes (the precompile command's -check relies on it).
func WritePrecompiled(ctx context.Context, dir string) error {
	tmp, err := os.MkdirTemp("", "treesitter-precompile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var index strings.Builder
	fmt.Fprintf(&index, "# written by go run ./pkg/audit/internal/treesitter/precompile: see precompiled.go\n")
	for l := range numLanguages {
		cache := filepath.Join(tmp, moduleFiles[l])
		e, err := newEngine(ctx, l, cache)
		if err != nil {
			return err
		}
		e.rt.Close(ctx)
		wdir := wazeroCacheDir()
		ents, err := os.ReadDir(filepath.Join(cache, wdir))
		if err != nil {
			return err
		}
		if len(ents) != 1 {
			return fmt.Errorf("%s: wazero wrote %d cache entries, want 1", moduleFiles[l], len(ents))
		}
		b, err := os.ReadFile(filepath.Join(cache, wdir, ents[0].Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, moduleFiles[l]+".bin"), b, 0o644); err != nil {
			return err
		}
		msum, esum := moduleSum(l), sha256.Sum256(b)
		fmt.Fprintf(&index, "%s %x %s %s %x\n", moduleFiles[l], msum, wdir, ents[0].Name(), esum)
	}
	return os.WriteFile(filepath.Join(dir, PrecompiledIndex), []byte(index.String()), 0o644)
}
