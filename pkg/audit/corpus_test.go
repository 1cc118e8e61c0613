package audit

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/corpustest"
)

// corpusDir finds the real-world corpus beside the repository.
func corpusDir(t testing.TB) string { return corpustest.Dir(t) }

// corpusSkills lists every directory of the corpus holding a SKILL.md.
func corpusSkills(t testing.TB) []string { return corpustest.Skills(t) }

// TestCorpus audits every corpus skill: none may fail or crash, and the
// counts by rule and the blocks per tier are logged (go test -run Corpus
// -v).
func TestCorpus(t *testing.T) {
	dirs := corpusSkills(t)
	if len(dirs) < 800 {
		t.Fatalf("found only %d corpus skills", len(dirs))
	}
	s, err := New(Options{Tool: "skillpm-test"})
	if err != nil {
		t.Fatal(err)
	}
	findings := map[string]int{}
	skills := map[string]int{}
	decisions := map[Decision]int{}
	dump := os.Getenv("SKILLPM_AUDIT_DUMP") // a rule id fragment, or "all"
	// Blocks per tier, and with SKILLPM_AUDIT_BLOCKS set each block with
	// the findings that decided it, for judging by hand.
	tiers := []string{"experimental", "community", "verified"}
	blocks := map[string]int{}
	showBlocks := os.Getenv("SKILLPM_AUDIT_BLOCKS") != ""
	start := time.Now()
	for _, dir := range dirs {
		rep, err := s.Scan(context.Background(), dir)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for id := range rep.Counts() {
			skills[id]++
		}
		for _, f := range rep.Findings {
			findings[f.Rule]++
			if dump != "" && (dump == "all" || strings.Contains(f.Rule, dump)) {
				rel, _ := filepath.Rel(corpusDir(t), dir)
				t.Logf("%s/%s %s: %s | %s", rel, f.Position(), f.Severity, f.Message, f.Evidence)
			}
		}
		v, err := rep.Verdict("")
		if err != nil {
			t.Fatal(err)
		}
		decisions[v.Decision]++
		if v.Decision == Block && dump != "" {
			t.Logf("blocked at %s: %s", v.Tier, dir)
		}
		for _, tier := range tiers {
			v, err := rep.Verdict(tier)
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != Block {
				continue
			}
			blocks[tier]++
			if showBlocks {
				rel, _ := filepath.Rel(corpusDir(t), dir)
				t.Logf("BLOCK %s %s: %s", tier, rel, strings.Join(v.Reasons, "; "))
			}
		}
	}
	elapsed := time.Since(start)
	var ids []string
	for id := range findings {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	total := 0
	for _, id := range ids {
		total += findings[id]
		t.Logf("%-32s %5d findings in %4d skills", id, findings[id], skills[id])
	}
	t.Logf("%d skills, %d findings in %v; verdicts at the claimed tier: pass %d, review %d, block %d",
		len(dirs), total, elapsed.Round(time.Millisecond), decisions[Pass], decisions[Review], decisions[Block])
	t.Logf("blocks per tier: experimental %d, community %d, verified %d", blocks["experimental"], blocks["community"], blocks["verified"])
}

// BenchmarkAuditCorpus audits the whole corpus once per iteration with one
// Scanner, and reports the slowest skill (worst-skill-ms). Targets: under
// 3 s for the corpus, under 1 s for any one skill.
func BenchmarkAuditCorpus(b *testing.B) {
	dirs := corpusSkills(b)
	s, err := New(Options{Tool: "skillpm-bench"})
	if err != nil {
		b.Fatal(err)
	}
	warmParsers(b, s)
	ctx := context.Background()
	worst, worstDir := time.Duration(0), ""
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, dir := range dirs {
			t0 := time.Now()
			if _, err := s.Scan(ctx, dir); err != nil {
				b.Fatal(err)
			}
			if d := time.Since(t0); d > worst {
				worst, worstDir = d, dir
			}
		}
	}
	b.ReportMetric(float64(len(dirs)), "skills")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-skill-ms")
	b.Logf("slowest corpus skill: %s (%v)", worstDir, worst)
}
