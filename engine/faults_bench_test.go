package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// faultSkills is the signed graph BenchmarkFaults installs: a skill that
// requires two others, one of which requires a third.
var faultSkills = []struct{ name, requires string }{
	{"base-notes", ""},
	{"log-reader", ""},
	{"summarizer", "    requirements:\n      skills:\n        base-notes: \"^1\"\n"},
	{"research", "    requirements:\n      skills:\n        summarizer: \"^1\"\n        log-reader: \"^1\"\n"},
}

// benchCount reads a positive count from the environment, else def.
func benchCount(b *testing.B, name string, def int) int {
	b.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		b.Fatalf("%s=%q: want a number", name, s)
	}
	return n
}

// BenchmarkFaults installs a signed graph (from a project manifest, lock
// written) SKILLPM_FAULTS_INSTALLS times (default 20) and mirrors it
// SKILLPM_FAULTS_MIRRORS times (default 4) through the fault-injecting
// proxy, a fault in SKILLPM_FAULTS_RATE of the requests (default 0.10,
// every fault kind, chosen by seed SKILLPM_FAULTS_SEED), each as a new
// process would (a new client) sharing one content cache. After every
// run it checks what the run left: an install that succeeded has every
// skill of the lock in its root, matching its receipt (files, version,
// digest); one that failed left no skill, no receipt and no lock; a
// mirror, failed or not, holds only blobs that match their digests; and
// at the end every blob in the shared cache matches its digest. It
// reports successes, clean failures, corruptions (which also fail the
// benchmark) and the worst wall time of one operation. Then the faults
// stop and every install that failed is run again where it failed: each
// must complete (reruns-ok). `make faults`
// runs it with 200 installs and 20 mirrors.
func BenchmarkFaults(b *testing.B) {
	installs := benchCount(b, "SKILLPM_FAULTS_INSTALLS", 20)
	mirrors := benchCount(b, "SKILLPM_FAULTS_MIRRORS", 4)
	seed := uint64(benchCount(b, "SKILLPM_FAULTS_SEED", 1))
	rate := 0.10
	if s := os.Getenv("SKILLPM_FAULTS_RATE"); s != "" {
		var err error
		if rate, err = strconv.ParseFloat(s, 64); err != nil || rate < 0 || rate > 1 {
			b.Fatalf("SKILLPM_FAULTS_RATE=%q: want a fraction", s)
		}
	}
	ctx := context.Background()
	work := b.TempDir()
	reg := registrytest.Start(b, registrytest.Options{InMemory: true})

	// Publish the graph, signed, straight to the registry.
	key, err := sign.GenerateKey("", nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "publisher.pub"), key.PublicPEM, 0o644); err != nil {
		b.Fatal(err)
	}
	policy := filepath.Join(work, "policy.yaml")
	if err := os.WriteFile(policy, []byte("version: 1\npolicies:\n  - name: publishers\n    scopes: [\"*\"]\n    tier: community\n    identities:\n      - key: publisher.pub\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(work, "cache")
	open := func(timeouts registry.Timeouts, home, source string) *engine.Engine {
		b.Helper()
		c, err := registry.New(registry.Options{PlainHTTP: true, CacheDir: cache, EmbeddedDir: filepath.Join(work, "embedded"),
			Credentials: credentials.NewMemoryStore(), Timeouts: timeouts,
			Retry: registry.RetryPolicy{MaxRetries: 5, MinWait: 10 * time.Millisecond, MaxWait: 100 * time.Millisecond, MaxRetryAfter: 2 * time.Second}})
		if err != nil {
			b.Fatal(err)
		}
		// Installs go to home/root; the project is home/skills.yaml.
		e, err := engine.Open(ctx, engine.Options{Client: c, Source: source, PolicyFile: policy, Env: hosts.Env{Home: home, Cwd: home},
			Target: roots.Target{Roots: []string{filepath.Join(home, "root")}}, Manifest: filepath.Join(home, "skills.yaml")})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	pub := open(registry.Timeouts{}, filepath.Join(work, "home"), reg.Host+"/faults")
	for _, s := range faultSkills {
		dir := filepath.Join(work, "src", s.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: %s for the fault benchmark. Use when testing.\nversion: 1.0.0\nmetadata:\n  gaia:\n    security_tier: community\n%s---\n# %s\n\n%s\n",
			s.name, s.name, s.requires, s.name, strings.Repeat("Notes on faults. ", 200))
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := pub.Publish(ctx, engine.PublishRequest{Dir: dir, NoVCS: true, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
			b.Fatal(err)
		}
	}

	// Everything from here goes through the proxy. A blob that drips is
	// a slow link, bounded by the stall timeout alone, not a fault.
	pick := registrytest.Seeded(seed, rate, registrytest.AllFaults)
	var healed atomic.Bool
	proxy := registrytest.NewProxyWith(b, reg, registrytest.ProxyOptions{Drip: 5 * time.Millisecond, RetryAfter: "1", AdvertiseRanges: true,
		Rule: func(r *http.Request, n int) registrytest.Fault {
			if healed.Load() {
				return registrytest.Pass
			}
			f := pick(r, n)
			if f == registrytest.Drip && strings.Contains(r.URL.Path, "/blobs/") {
				return registrytest.Pass
			}
			return f
		}})
	timeouts := registry.TimeoutsFor(300 * time.Millisecond)
	ns := proxy.Host + "/faults"

	var ok, clean, corrupt, mok, mclean, mcorrupt, rerunOK int
	var failed []string // the project directories of installs that failed cleanly
	var worst time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for i := range installs {
			dir := filepath.Join(work, "installs", fmt.Sprint(it, "-", i))
			root := filepath.Join(dir, "root")
			manifest := filepath.Join(dir, "skills.yaml")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(manifest, []byte("registry: "+ns+"\nskills:\n  research: ^1\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			e := open(timeouts, dir, "")
			start := time.Now()
			_, err := e.Install(ctx, engine.InstallRequest{})
			worst = max(worst, time.Since(start))
			if problem := checkInstall(root, filepath.Join(dir, "skills.lock"), err); problem != "" {
				corrupt++
				b.Errorf("install %d: %s (err %v)", i, problem, err)
			} else if err == nil {
				ok++
			} else {
				clean++
				failed = append(failed, dir)
				b.Logf("install %d failed cleanly: %v", i, err)
			}
		}
		for i := range mirrors {
			dst := filepath.Join(work, "mirrors", fmt.Sprint(it, "-", i))
			e := open(timeouts, filepath.Join(work, "home"), ns)
			start := time.Now()
			_, err := e.Mirror(ctx, engine.MirrorRequest{To: "oci-layout:" + dst, Verify: true,
				Options: registry.MirrorOptions{Names: []string{"base-notes", "log-reader", "summarizer", "research"}, Jobs: 4}})
			worst = max(worst, time.Since(start))
			if bad := badBlobs(filepath.Join(dst, "blobs")); len(bad) > 0 {
				mcorrupt++
				b.Errorf("mirror %d: blobs not matching their digests: %s (err %v)", i, bad, err)
			} else if err == nil {
				mok++
			} else {
				mclean++
				b.Logf("mirror %d failed cleanly: %v", i, err)
			}
		}
	}
	b.StopTimer()
	// Once the network heals, the same command run again on what each
	// failed install left completes, and leaves what a success leaves.
	healed.Store(true)
	for _, dir := range failed {
		root, lock := filepath.Join(dir, "root"), filepath.Join(dir, "skills.lock")
		_, err := open(timeouts, dir, "").Install(ctx, engine.InstallRequest{})
		if problem := checkInstall(root, lock, err); problem != "" || err != nil {
			corrupt++
			b.Errorf("install in %s run again after a fault: %s (err %v)", dir, problem, err)
			continue
		}
		rerunOK++
	}
	if bad := badBlobs(filepath.Join(cache, "blobs")); len(bad) > 0 {
		corrupt++
		b.Errorf("content cache holds blobs not matching their digests: %s", bad)
	}
	b.ReportMetric(float64(ok), "installs-ok")
	b.ReportMetric(float64(clean), "installs-failed-clean")
	b.ReportMetric(float64(corrupt), "installs-corrupt")
	b.ReportMetric(float64(rerunOK), "reruns-ok")
	b.ReportMetric(float64(mok), "mirrors-ok")
	b.ReportMetric(float64(mclean), "mirrors-failed-clean")
	b.ReportMetric(float64(mcorrupt), "mirrors-corrupt")
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
	b.ReportMetric(float64(proxy.Count("", "")), "requests")
}

// checkInstall says what is wrong with what an install left in root and
// lockFile, "" when nothing is: after a success, the lock's skills are in
// the root, each as its receipt says (files, version, digest); after a
// failure, neither the root nor the lock holds anything.
func checkInstall(root, lockFile string, err error) string {
	rs, rerr := install.ReadReceipts(root)
	_, lerr := os.Stat(lockFile)
	if err != nil {
		if rerr == nil && rs != nil && len(rs.Skills) > 0 {
			return fmt.Sprintf("a failed install left %d receipts", len(rs.Skills))
		}
		if lerr == nil {
			return "a failed install wrote the lock"
		}
		entries, _ := os.ReadDir(root)
		for _, en := range entries {
			if !strings.HasPrefix(en.Name(), ".") {
				return "a failed install left " + en.Name()
			}
		}
		if strings.TrimSpace(err.Error()) == "" || strings.Contains(err.Error(), "panic") {
			return "a failure without a message"
		}
		return ""
	}
	if rerr != nil {
		return "receipts: " + rerr.Error()
	}
	lock, lerr := resolve.ReadLockfile(context.Background(), lockFile)
	if lerr != nil {
		return "lock: " + lerr.Error()
	}
	if len(lock.Skills) != len(faultSkills) || len(rs.Skills) != len(faultSkills) {
		return fmt.Sprintf("%d locked, %d received, want %d", len(lock.Skills), len(rs.Skills), len(faultSkills))
	}
	byName := map[string]install.Record{}
	for _, r := range rs.Skills {
		byName[r.Name] = r
	}
	for _, l := range lock.Skills {
		r, ok := byName[l.Name]
		if !ok || r.Version != l.Version || r.Digest != l.Digest {
			return fmt.Sprintf("%s: lock says %s %s, receipt %s %s", l.Name, l.Version, l.Digest, r.Version, r.Digest)
		}
	}
	items, lerr := install.ListWith(context.Background(), []install.Root{{Host: install.HostAgents, Scope: install.ScopeUser, Dir: root}}, nil)
	if lerr != nil {
		return "list: " + lerr.Error()
	}
	for _, it := range items {
		if !it.Managed || it.Edited || it.Invalid {
			return fmt.Sprintf("%s: managed %v, edited %v, invalid %v", it.Name, it.Managed, it.Edited, it.Invalid)
		}
	}
	return ""
}

// badBlobs lists the files under dir (an OCI blobs directory) whose
// SHA-256 is not their name; temporary files (".tmp-...") are skipped.
func badBlobs(dir string) []string {
	var bad []string
	_ = filepath.WalkDir(filepath.Join(dir, "sha256"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			bad = append(bad, d.Name()+": "+err.Error())
			return nil
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil || hex.EncodeToString(h.Sum(nil)) != d.Name() {
			bad = append(bad, d.Name())
		}
		return nil
	})
	return bad
}
