package treesitter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// helperDirEnv makes the test binary a helper process that builds one
// engine with its compilation cache in the directory named, and exits.
const helperDirEnv = "TREESITTER_TEST_COMPILE_INTO"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperDirEnv); dir != "" {
		if err := parseWithCache(dir); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// parseWithCache builds an engine cached in dir, as a new process does,
// and parses with it.
func parseWithCache(dir string) error {
	ctx := context.Background()
	e, err := newCachedEngine(ctx, Python, dir)
	if err != nil {
		return err
	}
	defer e.rt.Close(ctx)
	var p Parser
	p.inst[Python].e = e
	defer p.Close()
	tr, err := p.Parse(ctx, Python, []byte("import os\nos.system('x')\n"), 100)
	if err != nil {
		return err
	}
	if tr.HasError || tr.Nodes[0].Kind != "module" {
		return os.ErrInvalid
	}
	return nil
}

// cacheEntries returns the compiled entries below dir, checking that each
// has its SHA-256 file.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	walkEntries(dir, func(p string) { out = append(out, p) })
	if len(out) == 0 {
		t.Fatalf("nothing cached in %s", dir)
	}
	for _, p := range out {
		sum, err := fileSum(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(p + sumSuffix)
		if err != nil || strings.TrimSpace(string(want)) != sum {
			t.Fatalf("%s: SHA-256 file says %q (%v), entry has %s", p, want, err, sum)
		}
	}
	return out
}

// TestCompilationCache: the first engine writes the compiled module with
// its SHA-256, the second (another process) loads it instead of writing
// it again.
func TestCompilationCache(t *testing.T) {
	dir := t.TempDir()
	if err := parseWithCache(dir); err != nil {
		t.Fatal(err)
	}
	entries := cacheEntries(t, dir)
	before, err := os.Stat(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := parseWithCache(dir); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Errorf("%s was written again: the second engine compiled instead of loading it", entries[0])
	}
}

// TestCompilationCacheDamaged: an entry changed after it was written, or
// replaced together with its SHA-256 file by bytes wazero cannot load, is
// dropped and compiled again; the engine works either way.
func TestCompilationCacheDamaged(t *testing.T) {
	damage := map[string]func(t *testing.T, entry string){
		"flipped byte": func(t *testing.T, entry string) {
			b, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			if err := os.WriteFile(entry, b, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"foreign entry with its own sum": func(t *testing.T, entry string) {
			if err := os.WriteFile(entry, []byte("WAZEVO not a module"), 0o600); err != nil {
				t.Fatal(err)
			}
			sum, err := fileSum(entry)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(entry+sumSuffix, []byte(sum+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"sum missing": func(t *testing.T, entry string) {
			if err := os.Remove(entry + sumSuffix); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := parseWithCache(dir); err != nil {
				t.Fatal(err)
			}
			entry := cacheEntries(t, dir)[0]
			good, err := fileSum(entry)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, entry)
			if err := parseWithCache(dir); err != nil {
				t.Fatalf("with a damaged cache: %v", err)
			}
			entries := cacheEntries(t, dir)
			if got, _ := fileSum(entries[0]); got != good {
				t.Errorf("the entry was not rebuilt: SHA-256 %s, a fresh compile wrote %s", got, good)
			}
		})
	}
}

// TestCompilationCacheConcurrentProcesses: two processes filling one empty
// cache at once both get a working parser, and the cache is whole after.
func TestCompilationCacheConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*strings.Builder, 2)
	for i := range cmds {
		outs[i] = new(strings.Builder)
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), helperDirEnv+"="+dir)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	cacheEntries(t, dir)
	if err := parseWithCache(dir); err != nil {
		t.Fatal(err)
	}
}

// TestCompilationCacheDir: the cache lives in skillpm's cache directory,
// one folder per module, and a directory others can write to is not used.
func TestCompilationCacheDir(t *testing.T) {
	base := t.TempDir()
	t.Setenv(CacheDirEnv, "")
	t.Setenv("SKILLPM_CACHE", base)
	dir := compileCacheDir(Python)
	if !strings.HasPrefix(dir, filepath.Join(base, "wazero", "treesitter-")) {
		t.Fatalf("compile cache in %q, want below %s/wazero", dir, base)
	}
	// Each grammar's module has its own folder, named by its digest: one
	// module's compiled code is never offered for another.
	seen := map[string]Language{}
	for l := range numLanguages {
		d := compileCacheDir(l)
		sum := sha256.Sum256(module(l))
		if filepath.Base(d) != "treesitter-"+hex.EncodeToString(sum[:12]) {
			t.Errorf("%s: compile cache %s is not named by the module's digest", moduleFiles[l], d)
		}
		if other, dup := seen[d]; dup {
			t.Errorf("%s and %s share the compile cache %s", moduleFiles[l], moduleFiles[other], d)
		}
		seen[d] = l
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := compileCacheDir(Python); got != "" {
		t.Errorf("a world-writable cache directory was used: %s", got)
	}
}

// TestPrepare: compiling ahead in the background (on one goroutine, as
// PrepareAhead does, or on every core) and parsing at once meet on one
// engine (run with -race), and an unknown language is ignored.
func TestPrepare(t *testing.T) {
	Prepare(numLanguages)
	PrepareAhead(numLanguages)
	PrepareAhead(JavaScript)
	Prepare(JavaScript)
	var p Parser
	defer p.Close()
	tr, err := p.Parse(context.Background(), JavaScript, []byte("fetch(url)\n"), 100)
	if err != nil || tr.HasError {
		t.Fatalf("parse after Prepare: %v", err)
	}
	e, err := engineFor(JavaScript, 0)
	if err != nil || p.inst[JavaScript].e != e {
		t.Fatalf("the parse did not use the prepared engine (%v)", err)
	}
}

// precompiledFS is a precompiled directory (see precompiled.go) holding
// entry as grammar l's compiled code, with the index line fields changed
// by edit.
func precompiledFS(t *testing.T, l Language, entry string, edit func(*precompiledEntry)) fstest.MapFS {
	t.Helper()
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	msum, esum := sha256.Sum256(module(l)), sha256.Sum256(b)
	e := precompiledEntry{moduleFiles[l], hex.EncodeToString(msum[:]), wazeroCacheDir(), filepath.Base(entry), hex.EncodeToString(esum[:])}
	if edit != nil {
		edit(&e)
	}
	line := strings.Join([]string{e.moduleFile, e.moduleSum, e.wazeroDir, e.entry, e.entrySum}, " ")
	return fstest.MapFS{
		PrecompiledIndex:        {Data: []byte("# test\n" + line + "\n")},
		moduleFiles[l] + ".bin": {Data: b},
	}
}

// TestPrecompiledSeed: a process whose cache is empty writes the compiled
// code the binary carries into it, sealed, and wazero loads it instead of
// compiling (the entry is not written again); an entry for another
// module, another wazero or with other bytes than its index says, or
// named outside the cache, is not written, and an entry already there is
// left alone.
func TestPrecompiledSeed(t *testing.T) {
	compiled := t.TempDir()
	if err := parseWithCache(compiled); err != nil {
		t.Fatal(err)
	}
	entry := cacheEntries(t, compiled)[0]

	dir := t.TempDir()
	seedCompileCache(precompiledFS(t, Python, entry, nil), dir, Python)
	seeded := cacheEntries(t, dir)
	if len(seeded) != 1 || filepath.Base(seeded[0]) != filepath.Base(entry) || filepath.Base(filepath.Dir(seeded[0])) != wazeroCacheDir() {
		t.Fatalf("seeded %v, want %s in %s", seeded, filepath.Base(entry), wazeroCacheDir())
	}
	before, err := os.Stat(seeded[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := parseWithCache(dir); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(seeded[0])
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Errorf("%s was written again: wazero compiled instead of loading the seeded entry", seeded[0])
	}

	// Seeding again leaves the entry there alone.
	seedCompileCache(precompiledFS(t, Python, entry, nil), dir, Python)
	if again, err := os.Stat(seeded[0]); err != nil || !os.SameFile(before, again) {
		t.Errorf("seeding a cache that holds the entry rewrote it (%v)", err)
	}

	refused := map[string]func(*precompiledEntry){
		"another module":  func(e *precompiledEntry) { e.moduleSum = strings.Repeat("0", 64) },
		"another wazero":  func(e *precompiledEntry) { e.wazeroDir = "wazero-v0.0.1-" + runtime.GOARCH + "-" + runtime.GOOS },
		"other bytes":     func(e *precompiledEntry) { e.entrySum = strings.Repeat("1", 64) },
		"outside":         func(e *precompiledEntry) { e.entry = "../../escaped" },
		"another grammar": func(e *precompiledEntry) { e.moduleFile = moduleFiles[JavaScript] },
	}
	for name, edit := range refused {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			seedCompileCache(precompiledFS(t, Python, entry, edit), dir, Python)
			var got []string
			filepath.WalkDir(filepath.Dir(dir), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					got = append(got, p)
				}
				return nil
			})
			if len(got) != 0 {
				t.Errorf("wrote %v", got)
			}
		})
	}
}
