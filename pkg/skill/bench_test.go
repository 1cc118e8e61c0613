package skill

import (
	"context"
	"testing"
)

// BenchmarkValidateCorpus validates every skill of the real-world corpus
// strictly, as `skillpm validate -r` does. Target: the corpus in under 2 s.
func BenchmarkValidateCorpus(b *testing.B) {
	dirs := corpusSkills(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		LoadSet(ctx, dirs, Options{Mode: Strict})
	}
	b.ReportMetric(float64(len(dirs)), "skills")
}
