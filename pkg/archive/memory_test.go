package archive

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocated returns the bytes allocated by fn. Not parallel: TotalAlloc is
// process-wide.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestStreamingMemory checks that Pack and Unpack allocate the same for a
// 1 MiB and a 16 MiB file: nothing is buffered per byte of content. The
// files are sparse, so the test costs little disk; `make bench` reports
// the figures at 100 MB.
func TestStreamingMemory(t *testing.T) {
	ctx := context.Background()
	lim := limits(func(l *Limits) { l.MaxRatio = 1 << 20 }) // zeros compress 1000:1
	measure := func(size int64) (pack, unpack uint64) {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "big.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var archive bytes.Buffer
		archive.Grow(int(size/500) + 1<<20) // the output is not what we measure
		pack = allocated(func() {
			if _, err := Pack(ctx, dir, &archive, PackOptions{Limits: lim}); err != nil {
				t.Fatal(err)
			}
		})
		dest := filepath.Join(t.TempDir(), "skill")
		unpack = allocated(func() {
			if _, err := Unpack(ctx, bytes.NewReader(archive.Bytes()), dest, lim); err != nil {
				t.Fatal(err)
			}
		})
		return pack, unpack
	}
	p1, u1 := measure(1 << 20)
	p16, u16 := measure(16 << 20)
	t.Logf("allocated: pack %d -> %d bytes, unpack %d -> %d bytes (1 MiB -> 16 MiB)", p1, p16, u1, u16)
	// 16x the content must not cost even 1 MiB more: a buffered copy would
	// cost 15 MiB more.
	const slack = 1 << 20
	if p16 > p1+slack {
		t.Errorf("Pack allocation grows with file size: %d -> %d", p1, p16)
	}
	if u16 > u1+slack {
		t.Errorf("Unpack allocation grows with file size: %d -> %d", u1, u16)
	}
}
