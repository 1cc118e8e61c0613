package treesitter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/userdir"
)

// sumSuffix names the file beside each compiled entry that holds the
// entry's SHA-256. wazero checks only a CRC of the machine code and fails
// the compile (instead of recompiling) on a bad entry, so the entries are
// checked here before wazero sees them: the cache holds native code that
// the parser runs.
const sumSuffix = ".sha256"

// compileCacheDir is where the compiled code of grammar l's module is
// kept: the directory CacheDirEnv names, else "wazero" in skillpm's cache
// directory, then one folder per module digest (wazero adds one per wazero version,
// architecture and OS below it), so that a rebuilt module or another
// wazero never meets a foreign entry. It returns "" when there is no
// cache directory or it is not safe to run code from (see usableCacheDir).
func compileCacheDir(l Language) string {
	base := os.Getenv(CacheDirEnv)
	if base == "" {
		d, err := userdir.SkillpmCache()
		if err != nil {
			return ""
		}
		base = filepath.Join(d, "wazero")
	}
	sum := moduleSum(l)
	dir := filepath.Join(base, "treesitter-"+hex.EncodeToString(sum[:12]))
	if !usableCacheDir(dir) {
		return ""
	}
	return dir
}

// usableCacheDir makes dir (private to the user) and says whether code
// may be loaded from it: a directory that others can write to could hold
// their code, so it is not used (the parser is then compiled in memory).
func usableCacheDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode().Perm()&0o022 == 0
}

// checkCompileCache removes every entry below dir whose SHA-256 file is
// missing or does not match it, so that wazero loads only entries that are
// as they were written, and returns the files of the entries it kept. An
// entry a concurrent process has just added and not yet sealed is removed
// too; that costs one more compile, never a bad load.
func checkCompileCache(dir string) map[string]fs.FileInfo {
	good := map[string]fs.FileInfo{}
	walkEntries(dir, func(p string) {
		want, err := os.ReadFile(p + sumSuffix)
		if err == nil {
			st, serr := os.Stat(p)
			if got, err := fileSum(p); err == nil && serr == nil && bytes.Equal(bytes.TrimSpace(want), []byte(got)) {
				good[p] = st
				return
			}
		}
		os.Remove(p)
		os.Remove(p + sumSuffix)
	})
	return good
}

// sealCompileCache writes the SHA-256 file of every entry below dir that
// is not one checkCompileCache kept (good): the ones this process's
// compile wrote, including those wazero replaced as stale.
func sealCompileCache(dir string, good map[string]fs.FileInfo) {
	walkEntries(dir, func(p string) {
		// Kept unchanged: the same file, not rewritten in place (wazero
		// may replace a stale entry by writing over it).
		if st, err := os.Stat(p); err == nil && good[p] != nil && os.SameFile(st, good[p]) &&
			st.Size() == good[p].Size() && st.ModTime().Equal(good[p].ModTime()) {
			return
		}
		sum, err := fileSum(p)
		if err != nil {
			return // removed meanwhile by another process's check
		}
		// Atomic, so a concurrent check never reads half a sum.
		_ = atomicfile.Write(p+sumSuffix, []byte(sum+"\n"), 0o600)
	})
}

// walkEntries calls fn with each compiled entry below dir: regular files
// that are neither SHA-256 files nor temporary files (wazero's end in
// .tmp, atomicfile's start with a dot).
func walkEntries(dir string, fn func(string)) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.Type().IsRegular() && !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, sumSuffix) && !strings.HasSuffix(name, ".tmp") {
			fn(p)
		}
		return nil
	})
}

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ModuleSHA256 returns the hex SHA-256 of the WebAssembly modules (of the
// list of their SHA-256 as treesitter.wasm.sha256 has it), which decide
// how sources parse: part of the audit's version.
func ModuleSHA256() string {
	h := sha256.New()
	for l := range numLanguages {
		sum := moduleSum(l)
		fmt.Fprintf(h, "%x  %s\n", sum, moduleFiles[l])
	}
	return hex.EncodeToString(h.Sum(nil))
}
