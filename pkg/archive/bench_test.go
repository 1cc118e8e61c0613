package archive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// makeSkill writes a skill of about size bytes under dir: 4% generated
// Markdown, the rest incompressible random data in 8 MB files.
func makeSkill(b *testing.B, dir string, size int64) int64 {
	b.Helper()
	rng := rand.NewChaCha8([32]byte{1})
	var total int64
	var md strings.Builder
	md.WriteString("---\nname: bench\ndescription: A large skill for benchmarks.\n---\n")
	for i := 0; int64(md.Len()) < size/25; i++ {
		fmt.Fprintf(&md, "## Step %d\n\nRun `scripts/step%d.sh` and check the %x output.\n\n", i, i%97, rng.Uint64())
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	total += int64(md.Len())
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 8_000_000)
	for i := 0; total < size; i++ {
		n := min(int64(len(buf)), size-total)
		rng.Read(buf[:n])
		if err := os.WriteFile(filepath.Join(dir, "assets", fmt.Sprintf("blob-%02d.bin", i)), buf[:n], 0o644); err != nil {
			b.Fatal(err)
		}
		total += n
	}
	return total
}

// heapPeak samples live heap objects while it runs, because TotalAlloc
// alone cannot show that memory stays flat during one long operation.
type heapPeak struct {
	stop chan struct{}
	wg   sync.WaitGroup
	base uint64
	peak uint64
}

// heapObjects reads live heap bytes into s, allocating nothing, so that
// sampling does not show up in the figures it samples.
func heapObjects(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapPeak() *heapPeak {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{}), base: heapObjects(s)}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.peak = max(h.peak, heapObjects(s))
			}
		}
	}()
	return h
}

// report adds peak-heap-MB (heap in use above the baseline, at worst) and
// alloc-B/MB (bytes allocated per op per MB of skill): both stay flat or
// fall as the skill grows when the code streams.
func (h *heapPeak) report(b *testing.B, size int64, before runtime.MemStats) {
	close(h.stop)
	h.wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak := float64(0)
	if h.peak > h.base {
		peak = float64(h.peak-h.base) / 1e6
	}
	b.ReportMetric(peak, "peak-heap-MB")
	perOp := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
	b.ReportMetric(perOp/(float64(size)/1e6), "alloc-B/MB")
}

func benchPack(b *testing.B, size int64) {
	dir := b.TempDir()
	total := makeSkill(b, dir, size)
	out, err := os.Create(filepath.Join(b.TempDir(), "out.tar.gz"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	ctx := context.Background()
	b.SetBytes(total)
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	h := startHeapPeak()
	for b.Loop() {
		if _, err := out.Seek(0, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := Pack(ctx, dir, out, PackOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	h.report(b, total, before)
}

func benchUnpack(b *testing.B, size int64) {
	src := b.TempDir()
	total := makeSkill(b, src, size)
	archive := filepath.Join(b.TempDir(), "skill.tar.gz")
	f, err := os.Create(archive)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Pack(context.Background(), src, f, PackOptions{}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.RemoveAll(src); err != nil {
		b.Fatal(err)
	}
	parent := b.TempDir()
	ctx := context.Background()
	b.SetBytes(total)
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	h := startHeapPeak()
	for i := 0; b.Loop(); i++ {
		in, err := os.Open(archive)
		if err != nil {
			b.Fatal(err)
		}
		dest := filepath.Join(parent, fmt.Sprint(i))
		_, err = Unpack(ctx, in, dest, Limits{})
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dest)
		b.StartTimer()
	}
	h.report(b, total, before)
}

// BenchmarkPack100MB packs a 100 MB skill (96% incompressible).
func BenchmarkPack100MB(b *testing.B) { benchPack(b, 100_000_000) }

// BenchmarkPack10MB is the same at a tenth of the size: compare the memory
// figures with BenchmarkPack100MB.
func BenchmarkPack10MB(b *testing.B) { benchPack(b, 10_000_000) }

// BenchmarkUnpack100MB unpacks the 100 MB skill from a file.
func BenchmarkUnpack100MB(b *testing.B) { benchUnpack(b, 100_000_000) }

// BenchmarkUnpack10MB is the same at a tenth of the size.
func BenchmarkUnpack10MB(b *testing.B) { benchUnpack(b, 10_000_000) }
