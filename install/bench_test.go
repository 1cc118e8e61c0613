package install

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

const benchGraph = 100

// publishGraph publishes benchGraph skills to src where skill i depends on
// skills i+1 and i+2 with caret ranges: a connected dependency graph.
func publishGraph(b *testing.B, c *registry.Client, src registry.Source, work string) []string {
	b.Helper()
	ctx := context.Background()
	names := make([]string, benchGraph)
	for i := range names {
		names[i] = fmt.Sprintf("graph-%03d", i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, benchGraph)
	sem := make(chan struct{}, 8)
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			deps := ""
			for _, j := range []int{i + 1, i + 2} {
				if j < benchGraph {
					deps += fmt.Sprintf("        %s: ^1\n", names[j])
				}
			}
			fm := fmt.Sprintf("---\nname: %s\ndescription: Benchmark skill %d. Use in benchmarks.\nversion: 1.0.0\n", name, i)
			if deps != "" {
				fm += "metadata:\n  gaia:\n    requirements:\n      skills:\n" + deps
			}
			dir := filepath.Join(work, "src", name)
			if err := writeFiles(dir, map[string]string{"SKILL.md": fm + "---\n# " + name + "\n",
				"references/notes.md": fmt.Sprintf("notes %d\n", i), "scripts/run.sh": fmt.Sprintf("echo %d\n", i)}); err != nil {
				errs <- err
				return
			}
			a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
			if err == nil {
				_, err = c.Publish(ctx, src, a, registry.PublishOptions{})
			}
			if err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return names
}

// BenchmarkInstallCold100 installs a 100-skill dependency graph from a
// real distribution registry with an empty cache (resolve, fetch, verify,
// stage, commit), against pulling the same 100 artifacts with the oras CLI
// in a loop, in the same run. Target: skillpm at most a quarter of oras.
func BenchmarkInstallCold100(b *testing.B) {
	reg := registrytest.Start(b, registrytest.Options{InMemory: true})
	registrytest.Oras(b)
	ctx := context.Background()
	work := b.TempDir()
	pub, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "pubcache"), EmbeddedDir: filepath.Join(work, "embedded")})
	if err != nil {
		b.Fatal(err)
	}
	ns := reg.Host + "/bench"
	src, err := pub.Remote(ns)
	if err != nil {
		b.Fatal(err)
	}
	names := publishGraph(b, pub, src, work)
	var skillpmTime, orasTime time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, fmt.Sprintf("cache-%d", it)), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			b.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: ns})
		if err != nil {
			b.Fatal(err)
		}
		m := &resolve.Manifest{File: "bench", Skills: []resolve.Requirement{{Name: names[0], Range: "^1"}}}
		for _, n := range names[1:] {
			// Every skill is asked for, so the unsigned set may install
			// (experimental skills are never installed as dependencies).
			m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: resolve.AnyRange})
		}
		root := filepath.Join(work, fmt.Sprintf("root-%d", it))
		start := time.Now()
		res, err := Install(ctx, c, g, m, nil, Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true})
		skillpmTime += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Roots[0].Installed); n != benchGraph {
			b.Fatalf("installed %d skills", n)
		}

		start = time.Now()
		for _, n := range names {
			out := filepath.Join(work, fmt.Sprintf("oras-%d", it), n)
			cmd := registrytest.OrasCmd(ctx, b, work, "pull", "--plain-http", "-o", out, ns+"/"+n+":1.0.0")
			if o, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("oras pull %s: %v\n%s", n, err, o)
			}
		}
		orasTime += time.Since(start)
	}
	b.ReportMetric(float64(skillpmTime.Milliseconds())/float64(b.N), "skillpm-ms")
	b.ReportMetric(float64(orasTime.Milliseconds())/float64(b.N), "oras-ms")
	b.ReportMetric(float64(skillpmTime)/float64(orasTime), "skillpm/oras")
}

// BenchmarkInstallLargeAsset installs a skill carrying a 500 MB asset from
// the embedded registry and reports the peak Go heap during the install.
// Target: under 100 MB (the layer streams through the cache and unpacker).
func BenchmarkInstallLargeAsset(b *testing.B) {
	reg := newTestRegistry(b)
	dir := filepath.Join(reg.work, "big", "big-asset")
	if err := writeFiles(dir, map[string]string{"SKILL.md": "---\nname: big-asset\ndescription: A skill with a large model file. Use in benchmarks.\nversion: 1.0.0\n---\n# big\n"}); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "assets.bin"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyN(f, rand.Reader, 500<<20); err != nil {
		b.Fatal(err)
	}
	f.Close()
	ctx := context.Background()
	a, err := registry.Build(ctx, dir, registry.BuildOptions{NoVCS: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := reg.client.Publish(ctx, reg.client.Embedded(), a, registry.PublishOptions{}); err != nil {
		b.Fatal(err)
	}
	a = nil
	var peak atomic.Uint64
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		runtime.GC()
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		_, err := reg.install(filepath.Join(b.TempDir(), "root"), "big-asset")
		close(done)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.SetBytes(500 << 20)
}

// BenchmarkInstallWarmNoop installs a project's lock of a 100-skill graph
// into a root that already holds it: no resolution, no registry request
// (counted at a proxy in front of the real registry). Target: under 50 ms.
func BenchmarkInstallWarmNoop(b *testing.B) {
	reg := registrytest.Start(b, registrytest.Options{InMemory: true})
	proxy := registrytest.NewProxy(b, reg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	ctx := context.Background()
	work := b.TempDir()
	c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache"), EmbeddedDir: filepath.Join(work, "embedded")})
	if err != nil {
		b.Fatal(err)
	}
	ns := proxy.Host + "/bench"
	src, err := c.Remote(ns)
	if err != nil {
		b.Fatal(err)
	}
	names := publishGraph(b, c, src, work)
	m := &resolve.Manifest{File: "skills.yaml", Registry: ns}
	for _, n := range names {
		m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: "^1"})
	}
	g, err := catalog.New(c, resolve.Namespace{Default: ns})
	if err != nil {
		b.Fatal(err)
	}
	lockFile := filepath.Join(work, "skills.lock")
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root")}}, AllowExperimental: true, LockFile: lockFile}
	res, err := Install(ctx, c, g, m, nil, opts)
	if err != nil {
		b.Fatal(err)
	}
	lock := res.Lock
	before := proxy.Count("", "")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Install(ctx, c, g, m, lock, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Roots[0].Installed) != 0 || len(res.Roots[0].Unchanged) != benchGraph {
			b.Fatalf("not a no-op: %+v", res.Roots[0])
		}
	}
	b.StopTimer()
	requests := proxy.Count("", "") - before
	if requests != 0 {
		b.Fatalf("a no-op install made %d registry requests", requests)
	}
	b.ReportMetric(float64(requests), "requests")
}
