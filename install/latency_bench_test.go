package install

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/registry/sparse"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// benchIndexPolicy trusts the index key for the benchmark's namespace.
const benchIndexPolicy = `version: 1
policies:
  - name: index
    scopes: ["**/skillpm-index"]
    tier: community
    identities:
      - key: index.pub
`

// signedIndex writes the sparse index of src, signs it with a new key and
// returns a policy trusting that key and its trust material.
func signedIndex(b *testing.B, c *registry.Client, src registry.Source, names []string, dir string) (*tiers.Policy, sign.VerifyOptions) {
	b.Helper()
	ctx := context.Background()
	kp, err := sign.GenerateKey(sign.ECDSAP256, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.pub"), kp.PublicPEM, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(benchIndexPolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := tiers.Load(ctx, filepath.Join(dir, "policy.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	trust, err := policycheck.PolicyTrust(ctx, p, policycheck.TrustOptions{NoPublicGood: true})
	if err != nil {
		b.Fatal(err)
	}
	res, err := sparse.Update(ctx, c, src, sparse.UpdateOptions{Names: names, Jobs: 16})
	if err != nil {
		b.Fatal(err)
	}
	sig, err := sign.Sign(ctx, res.Descriptor, sign.SignOptions{Key: kp.Key})
	if err != nil {
		b.Fatal(err)
	}
	repo, err := c.Repository(src, sparse.Repository)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := repo.AttachSignature(ctx, res.Descriptor, sig.Bundle, registry.AttachOptions{}); err != nil {
		b.Fatal(err)
	}
	return p, trust
}

// benchRTT returns the round trip time the latency benchmarks simulate:
// $SKILLPM_BENCH_RTT (a Go duration), else 50ms.
func benchRTT(b *testing.B) time.Duration {
	b.Helper()
	if s := os.Getenv("SKILLPM_BENCH_RTT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			b.Fatalf("SKILLPM_BENCH_RTT=%q: want a duration such as 50ms", s)
		}
		return d
	}
	return 50 * time.Millisecond
}

// benchRegistryRequests returns $SKILLPM_BENCH_HOST_REQUESTS, the per-registry
// request bound of the measured clients; 0 (the default) means
// registry.DefaultRegistryRequests.
func benchRegistryRequests(b *testing.B) int {
	b.Helper()
	s := os.Getenv("SKILLPM_BENCH_HOST_REQUESTS")
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		b.Fatalf("SKILLPM_BENCH_HOST_REQUESTS=%q: want a number", s)
	}
	return n
}

// latencyMetrics reports one side's wall time, sequential round trips,
// requests, connections and bytes under prefix ("skillpm-" or "oras-").
func latencyMetrics(b *testing.B, prefix string, wall time.Duration, tr *registrytest.Trace) {
	b.ReportMetric(float64(wall.Microseconds())/1e3, prefix+"ms")
	b.ReportMetric(float64(tr.Rounds()), prefix+"rounds")
	b.ReportMetric(float64(tr.Requests()), prefix+"requests")
	b.ReportMetric(float64(tr.Conns()), prefix+"conns")
	b.ReportMetric(float64(tr.Bytes()), prefix+"bytes")
}

// orasLoop runs oras once per name, args built by argv, timed and traced.
func orasLoop(ctx context.Context, b *testing.B, dir string, tr *registrytest.Trace, names []string, argv func(string) []string) time.Duration {
	b.Helper()
	tr.Reset()
	start := time.Now()
	for _, n := range names {
		cmd := registrytest.OrasCmd(ctx, b, dir, argv(n)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("oras %v: %v\n%s", cmd.Args[1:], err, out)
		}
	}
	return time.Since(start)
}

// BenchmarkLatency100 is the 100-skill graph of BenchmarkInstallCold100
// behind a proxy that adds a round trip time (SKILLPM_BENCH_RTT, default
// 50ms) to every request and another to every new connection, in front of
// the real distribution registry. For each case it reports the wall time
// and the sequential round trips (the longest chain of requests each of
// which started after the previous one ended; see registrytest.Trace), of
// skillpm and of the oras CLI in a loop through the same proxy:
//
//   - cold: install the graph with an empty cache; oras pulls each skill.
//   - warm: install the project's lock into the root that holds it.
//   - update: `skillpm update --dry-run` of the 100 installed skills with
//     the cache the install left; oras lists each skill's tags.
//   - frozen: `install --frozen` of the lock into a new root with an empty
//     cache (a CI machine); oras pulls each skill by the lock's digest.
//
// Run it with -benchtime 1x: each case is one operation.
func BenchmarkLatency100(b *testing.B) {
	rtt := benchRTT(b)
	reg := registrytest.Start(b, registrytest.Options{InMemory: true})
	registrytest.Oras(b)
	tr := registrytest.NewTrace()
	proxy := registrytest.NewProxyWith(b, reg, registrytest.ProxyOptions{Delay: rtt / 2, Trace: tr})
	ctx := context.Background()
	work := b.TempDir()
	pub, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "pubcache"), EmbeddedDir: filepath.Join(work, "embedded")})
	if err != nil {
		b.Fatal(err)
	}
	// Published straight to the registry: only what is measured pays the
	// latency.
	pubSrc, err := pub.Remote(reg.Host + "/bench")
	if err != nil {
		b.Fatal(err)
	}
	names := publishGraph(b, pub, pubSrc, work)
	ns := proxy.Host + "/bench"
	m := &resolve.Manifest{File: "skills.yaml", Registry: ns}
	for _, n := range names {
		m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: "^1"})
	}
	cacheDir := filepath.Join(work, "cache")
	root := filepath.Join(work, "root")
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true, LockFile: filepath.Join(work, "skills.lock")}
	newClient := func() (*registry.Client, *catalog.Registry) {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: cacheDir, EmbeddedDir: filepath.Join(work, "embedded"), RegistryRequests: benchRegistryRequests(b)})
		if err != nil {
			b.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: ns})
		if err != nil {
			b.Fatal(err)
		}
		return c, g
	}
	var lock *resolve.Lockfile
	b.Run("cold", func(b *testing.B) {
		if b.N != 1 {
			b.Fatal("run with -benchtime 1x")
		}
		c, g := newClient()
		tr.Reset()
		start := time.Now()
		res, err := Install(ctx, c, g, m, nil, opts)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Roots[0].Installed); n != benchGraph {
			b.Fatalf("installed %d skills", n)
		}
		lock = res.Lock
		latencyMetrics(b, "skillpm-", wall, tr)
		owall := orasLoop(ctx, b, work, tr, names, func(n string) []string {
			return []string{"pull", "--plain-http", "-o", filepath.Join(work, "oras", n), ns + "/" + n + ":1.0.0"}
		})
		latencyMetrics(b, "oras-", owall, tr)
		b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})
	if lock == nil {
		return
	}
	b.Run("warm", func(b *testing.B) {
		c, g := newClient()
		tr.Reset()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			res, err := Install(ctx, c, g, m, lock, opts)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Roots[0].Unchanged) != benchGraph {
				b.Fatalf("not a no-op: %+v", res.Roots[0])
			}
		}
		latencyMetrics(b, "skillpm-", time.Since(start)/time.Duration(b.N), tr)
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})
	b.Run("update", func(b *testing.B) {
		if b.N != 1 {
			b.Fatal("run with -benchtime 1x")
		}
		c, g := newClient()
		uopts := opts
		uopts.DryRun = true
		tr.Reset()
		start := time.Now()
		res, err := Update(ctx, c, g, nil, uopts)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Changes) != 0 {
			b.Fatalf("update check found changes: %+v", res.Changes)
		}
		latencyMetrics(b, "skillpm-", wall, tr)
		owall := orasLoop(ctx, b, work, tr, names, func(n string) []string {
			return []string{"repo", "tags", "--plain-http", ns + "/" + n}
		})
		latencyMetrics(b, "oras-", owall, tr)
		b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})
	b.Run("frozen", func(b *testing.B) {
		if b.N != 1 {
			b.Fatal("run with -benchtime 1x")
		}
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache-frozen"), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			b.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: ns})
		if err != nil {
			b.Fatal(err)
		}
		fopts := opts
		fopts.Frozen, fopts.LockFile = true, ""
		fopts.Roots = []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root-frozen")}}
		tr.Reset()
		start := time.Now()
		res, err := Install(ctx, c, g, m, lock, fopts)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Roots[0].Installed); n != benchGraph {
			b.Fatalf("installed %d skills", n)
		}
		latencyMetrics(b, "skillpm-", wall, tr)
		digests := map[string]string{}
		for _, ls := range lock.Skills {
			digests[ls.Name] = ls.Digest
		}
		owall := orasLoop(ctx, b, work, tr, names, func(n string) []string {
			return []string{"pull", "--plain-http", "-o", filepath.Join(work, "oras-frozen", n), ns + "/" + n + "@" + digests[n]}
		})
		latencyMetrics(b, "oras-", owall, tr)
		b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})

	// The same graph with a sparse index signed by a key the policy
	// trusts: a new machine (empty cache, new root), then its update check.
	ipol, itrust := signedIndex(b, pub, pubSrc, names, work)
	iopts := opts
	iopts.Policy, iopts.Trust = ipol, itrust
	iopts.Roots = []Root{{Host: HostAgents, Scope: ScopeUser, Dir: filepath.Join(work, "root-index")}}
	iopts.LockFile = filepath.Join(work, "skills-index.lock")
	var warns []string
	iopts.Warn = func(s string) { warns = append(warns, s) }
	icache := filepath.Join(work, "cache-index")
	newIndexClient := func() (*registry.Client, *catalog.Registry) {
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: icache, EmbeddedDir: filepath.Join(work, "embedded"), RegistryRequests: benchRegistryRequests(b)})
		if err != nil {
			b.Fatal(err)
		}
		g, err := catalog.New(c, resolve.Namespace{Default: ns})
		if err != nil {
			b.Fatal(err)
		}
		return c, g
	}
	b.Run("cold-index", func(b *testing.B) {
		if b.N != 1 {
			b.Fatal("run with -benchtime 1x")
		}
		c, g := newIndexClient()
		warns = nil
		tr.Reset()
		start := time.Now()
		res, err := Install(ctx, c, g, m, nil, iopts)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if len(warns) > 0 {
			b.Fatalf("the index was not used: %q", warns)
		}
		if n := len(res.Roots[0].Installed); n != benchGraph {
			b.Fatalf("installed %d skills", n)
		}
		latencyMetrics(b, "skillpm-", wall, tr)
		owall := orasLoop(ctx, b, work, tr, names, func(n string) []string {
			return []string{"pull", "--plain-http", "-o", filepath.Join(work, "oras-index", n), ns + "/" + n + ":1.0.0"}
		})
		latencyMetrics(b, "oras-", owall, tr)
		b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})
	b.Run("update-index", func(b *testing.B) {
		if b.N != 1 {
			b.Fatal("run with -benchtime 1x")
		}
		c, g := newIndexClient()
		uopts := iopts
		uopts.DryRun = true
		warns = nil
		tr.Reset()
		start := time.Now()
		res, err := Update(ctx, c, g, nil, uopts)
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if len(warns) > 0 {
			b.Fatalf("the index was not used: %q", warns)
		}
		if len(res.Changes) != 0 {
			b.Fatalf("update check found changes: %+v", res.Changes)
		}
		latencyMetrics(b, "skillpm-", wall, tr)
		owall := orasLoop(ctx, b, work, tr, names, func(n string) []string {
			return []string{"repo", "tags", "--plain-http", ns + "/" + n}
		})
		latencyMetrics(b, "oras-", owall, tr)
		b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
		b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
	})
}
