package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
)

// benchSkills is how many skills BenchmarkPublishPull100 moves.
const benchSkills = 100

// BenchmarkPublishPull100 publishes then pulls 100 small skills against a
// real distribution registry, once with skillpm's library (concurrently,
// one process) and once with the oras CLI in a loop (oras push + oras pull
// per skill), in the same run. It reports both wall times per iteration
// and their ratio; the target is skillpm-ms/oras-ms <= 0.25.
//
// skillpm's time includes validating and packing each skill; the oras
// loop gets its files packed beforehand. Each iteration uses a fresh
// namespace and cache, so nothing is a no-op.
//
//	go test -run '^$' -bench BenchmarkPublishPull100 -benchtime 1x ./registry/
func BenchmarkPublishPull100(b *testing.B) {
	reg := registrytest.Start(b, registrytest.Options{InMemory: true})
	registrytest.Oras(b)
	ctx := context.Background()
	work := b.TempDir()
	type item struct {
		name, dir, config, layer string
	}
	items := make([]item, benchSkills)
	for i := range items {
		name := fmt.Sprintf("bench-%03d", i)
		dir := writeSkill(b, work, skillSpec{name: name, version: "1.0.0", permissions: []string{"network:read"},
			files: map[string]string{"scripts/run.sh": fmt.Sprintf("echo %d\n", i), "references/notes.md": fmt.Sprintf("notes %d\n", i)}})
		a := build(b, dir)
		odir := filepath.Join(work, "oras", name)
		if err := os.MkdirAll(odir, 0o755); err != nil {
			b.Fatal(err)
		}
		it := item{name: name, dir: dir, config: filepath.Join(odir, "config.json"), layer: filepath.Join(odir, LayerTitle(name, "1.0.0"))}
		if err := os.WriteFile(it.config, a.Config, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(it.layer, a.Layer, 0o644); err != nil {
			b.Fatal(err)
		}
		items[i] = it
	}

	var skillpmTime, orasTime time.Duration
	b.ResetTimer()
	for iter := 0; iter < b.N; iter++ {
		ns := fmt.Sprintf("%s/it%d", reg.Host, iter)

		// skillpm: one client, bounded concurrency.
		c, err := New(Options{PlainHTTP: true, CacheDir: filepath.Join(work, fmt.Sprintf("cache-%d", iter)), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			b.Fatal(err)
		}
		src, err := c.Remote(ns + "/skillpm")
		if err != nil {
			b.Fatal(err)
		}
		// Each timed phase starts with no dirty pages left by the last one:
		// the registry fsyncs every blob, and a journal commit would
		// otherwise flush the other phase's writes on its time.
		syncFS()
		start := time.Now()
		parallel(b, items, func(it item) error {
			a, err := Build(ctx, it.dir, BuildOptions{NoVCS: true})
			if err != nil {
				return err
			}
			_, err = c.Publish(ctx, src, a, PublishOptions{})
			return err
		})
		// Pulls go through a second client with an empty cache: nothing the
		// publishes saw is reused.
		puller, err := New(Options{PlainHTTP: true, CacheDir: filepath.Join(work, fmt.Sprintf("cache-pull-%d", iter)), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			b.Fatal(err)
		}
		psrc, err := puller.Remote(ns + "/skillpm")
		if err != nil {
			b.Fatal(err)
		}
		pullDir := filepath.Join(work, fmt.Sprintf("pulled-%d", iter))
		parallel(b, items, func(it item) error {
			repo, err := puller.Repository(psrc, it.name)
			if err != nil {
				return err
			}
			sel, _ := source.ParseSelector("1.0.0")
			m, err := repo.Get(ctx, sel, false)
			if err != nil {
				return err
			}
			_, err = repo.Pull(ctx, m, filepath.Join(pullDir, it.name), PullOptions{})
			return err
		})
		skillpmTime += time.Since(start)

		// oras CLI: a process per push and per pull.
		syncFS()
		start = time.Now()
		for _, it := range items {
			ref := ns + "/oras/" + it.name + ":1.0.0"
			odir := filepath.Dir(it.layer)
			if out, err := registrytest.OrasCmd(ctx, b, odir, "push", "--plain-http", "--artifact-type", ArtifactType,
				"--config", "config.json:"+ConfigMediaType, ref, filepath.Base(it.layer)+":"+LayerMediaType).CombinedOutput(); err != nil {
				b.Fatalf("oras push: %v\n%s", err, out)
			}
			if out, err := registrytest.OrasCmd(ctx, b, odir, "pull", "--plain-http", "-o", fmt.Sprintf("pulled-%d", iter), ref).CombinedOutput(); err != nil {
				b.Fatalf("oras pull: %v\n%s", err, out)
			}
		}
		orasTime += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(skillpmTime.Milliseconds())/n, "skillpm-ms")
	b.ReportMetric(float64(orasTime.Milliseconds())/n, "oras-ms")
	b.ReportMetric(skillpmTime.Seconds()/orasTime.Seconds(), "skillpm/oras")
}
