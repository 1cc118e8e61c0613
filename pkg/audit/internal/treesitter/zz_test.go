package treesitter

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestZZParseSpeed(t *testing.T) {
	files, _ := filepath.Glob("../../../../testdata/bench/five/*/*/*.py")
	more, _ := filepath.Glob("../../../../testdata/bench/five/*/*/*/*.py")
	files = append(files, more...)
	var srcs [][]byte
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		srcs = append(srcs, b)
		n += len(b)
	}
	p := &Parser{}
	ctx := context.Background()
	p.Parse(ctx, Python, srcs[0], 1<<20)
	best := time.Hour
	for range 5 {
		start := time.Now()
		for _, s := range srcs {
			if _, err := p.Parse(ctx, Python, s, 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		best = min(best, time.Since(start))
	}
	t.Logf("%d bytes: best pass %v, %.2f MB/s", n, best, float64(n)/best.Seconds()/1e6)
}
