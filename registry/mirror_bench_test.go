package registry

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
)

// BenchmarkMirror200 mirrors 200 small skills, each with one signature,
// from a real distribution registry to a second one, once with skillpm's
// Mirror (one process, 16 jobs) and once with `oras cp -r` in a loop over
// the same 200 references, in the same run. It reports both wall times per
// iteration and their ratio; the target is skillpm/oras <= 0.25. Each
// iteration copies into fresh namespaces, so nothing is skipped.
//
//	go test -run '^$' -bench BenchmarkMirror200 -benchtime 1x ./registry/
func BenchmarkMirror200(b *testing.B) {
	src, dst, names := mirrorBenchRegistries(b)
	ctx := context.Background()
	work := b.TempDir()

	var skillpmTime, orasTime time.Duration
	b.ResetTimer()
	for iter := 0; iter < b.N; iter++ {
		c, err := New(Options{PlainHTTP: true, CacheDir: filepath.Join(work, fmt.Sprintf("cache-%d", iter)), EmbeddedDir: filepath.Join(work, "embedded")})
		if err != nil {
			b.Fatal(err)
		}
		s, _ := c.Remote(src.Host + "/skills")
		d, _ := c.Remote(fmt.Sprintf("%s/it%d/skillpm", dst.Host, iter))
		syncFS()
		start := time.Now()
		res, err := c.Mirror(ctx, s, d, MirrorOptions{Names: names, Jobs: 16})
		if err != nil || res.Err() != nil || res.Count(MirrorCopied) != len(names) {
			b.Fatalf("mirror: %v %v %d copied", err, res.Err(), res.Count(MirrorCopied))
		}
		skillpmTime += time.Since(start)

		syncFS()
		start = time.Now()
		for _, n := range names {
			if out, err := registrytest.OrasCmd(ctx, b, work, "cp", "-r", "--from-plain-http", "--to-plain-http",
				src.Host+"/skills/"+n+":1.0.0", fmt.Sprintf("%s/it%d/oras/%s:1.0.0", dst.Host, iter, n)).CombinedOutput(); err != nil {
				b.Fatalf("oras cp: %v\n%s", err, out)
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

// mirrorBenchRegistries starts the source and destination registries of
// the mirror benchmarks (in memory, oras installed) and seeds the source
// with 200 signed skills, bench-000 onwards, under skills/.
func mirrorBenchRegistries(b *testing.B) (src, dst *registrytest.Registry, names []string) {
	src = registrytest.Start(b, registrytest.Options{InMemory: true})
	dst = registrytest.Start(b, registrytest.Options{InMemory: true})
	registrytest.Oras(b)
	seeder := testClient(b, func(o *Options) { o.PlainHTTP = true })
	from, err := seeder.Remote(src.Host + "/skills")
	if err != nil {
		b.Fatal(err)
	}
	publisher, _ := testKeys(b)
	return src, dst, seedSigned(b, seeder, from, "bench", 200, publisher, nil)
}
