package registry

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/registrytest"
)

// BenchmarkLatencyMirror200 mirrors 200 signed skills between two real
// distribution registries, each behind a proxy that adds a round trip
// time (SKILLPM_BENCH_RTT, default 50ms) to every request and another to
// every new connection, once with skillpm's Mirror and once with `oras cp
// -r` in a loop through the same proxies (over a sample, scaled to 200:
// see below). It reports each side's wall time and sequential round trips
// (see registrytest.Trace) and the ratio.
// Run it with -benchtime 1x.
func BenchmarkLatencyMirror200(b *testing.B) {
	if b.N != 1 {
		b.Fatal("run with -benchtime 1x")
	}
	rtt := 50 * time.Millisecond
	if s := os.Getenv("SKILLPM_BENCH_RTT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			b.Fatalf("SKILLPM_BENCH_RTT=%q: want a duration such as 50ms", s)
		}
		rtt = d
	}
	src, dst, names := mirrorBenchRegistries(b)
	tr := registrytest.NewTrace()
	psrc := registrytest.NewProxyWith(b, src, registrytest.ProxyOptions{Delay: rtt / 2, Trace: tr})
	pdst := registrytest.NewProxyWith(b, dst, registrytest.ProxyOptions{Delay: rtt / 2, Trace: tr})
	ctx := context.Background()
	work := b.TempDir()

	c, err := New(Options{PlainHTTP: true, CacheDir: filepath.Join(work, "cache"), EmbeddedDir: filepath.Join(work, "embedded")})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := c.Remote(psrc.Host + "/skills")
	d, _ := c.Remote(pdst.Host + "/skillpm")
	tr.Reset()
	start := time.Now()
	res, err := c.Mirror(ctx, s, d, MirrorOptions{Names: names, Jobs: 16})
	wall := time.Since(start)
	if err != nil || res.Err() != nil || res.Count(MirrorCopied) != len(names) {
		b.Fatalf("mirror: %v %v %d copied", err, res.Err(), res.Count(MirrorCopied))
	}
	report := func(prefix string, wall time.Duration) {
		b.ReportMetric(float64(wall.Microseconds())/1e3, prefix+"ms")
		b.ReportMetric(float64(tr.Rounds()), prefix+"rounds")
		b.ReportMetric(float64(tr.Requests()), prefix+"requests")
		b.ReportMetric(float64(tr.Conns()), prefix+"conns")
		b.ReportMetric(float64(tr.Bytes()), prefix+"bytes")
	}
	report("skillpm-", wall)

	// The oras loop runs one process per skill, one after another, so its
	// time is linear in the skills: it copies an evenly spread sample
	// ($SKILLPM_BENCH_ORAS_SAMPLE, default 50; 200 for all) and its
	// figures are scaled to 200, which keeps make bench within minutes
	// (the whole loop takes over five at 50ms).
	sample := 50
	if s := os.Getenv("SKILLPM_BENCH_ORAS_SAMPLE"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 && n <= len(names) {
			sample = n
		} else {
			b.Fatalf("SKILLPM_BENCH_ORAS_SAMPLE=%q: want 1 to %d", s, len(names))
		}
	}
	var picked []string
	for i := 0; i < sample; i++ {
		picked = append(picked, names[i*len(names)/sample])
	}
	scale := float64(len(names)) / float64(sample)
	tr.Reset()
	start = time.Now()
	for _, n := range picked {
		if out, err := registrytest.OrasCmd(ctx, b, work, "cp", "-r", "--from-plain-http", "--to-plain-http",
			psrc.Host+"/skills/"+n+":1.0.0", pdst.Host+"/oras/"+n+":1.0.0").CombinedOutput(); err != nil {
			b.Fatalf("oras cp: %v\n%s", err, out)
		}
	}
	owall := time.Duration(float64(time.Since(start)) * scale)
	b.ReportMetric(float64(owall.Microseconds())/1e3, "oras-ms")
	b.ReportMetric(float64(tr.Rounds())*scale, "oras-rounds")
	b.ReportMetric(float64(tr.Requests())*scale, "oras-requests")
	b.ReportMetric(float64(tr.Conns())*scale, "oras-conns")
	b.ReportMetric(float64(tr.Bytes())*scale, "oras-bytes")
	b.ReportMetric(float64(sample), "oras-sample")
	b.ReportMetric(wall.Seconds()/owall.Seconds(), "skillpm/oras")
	b.ReportMetric(float64(rtt.Milliseconds()), "rtt-ms")
}
