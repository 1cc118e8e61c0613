package treesitter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
