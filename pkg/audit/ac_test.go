package audit

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestACMatcherFindsEveryOccurrence checks the matcher against a plain
// search of every keyword, with the instruction rules' keywords (many
// sharing prefixes and suffixes) and random texts built from pieces of
// them, in mixed case.
func TestACMatcherFindsEveryOccurrence(t *testing.T) {
	_, m := compileInstrRules()
	words := slices.Clone(testKeywords(t))
	if len(words) != m.n {
		t.Fatalf("%d keywords, matcher has %d", len(words), m.n)
	}
	small := newACMatcher([]string{"he", "she", "his", "hers", "s", "ab", "b", "bab"})
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		m     *acMatcher
		words []string
	}{{m, words}, {small, []string{"he", "she", "his", "hers", "s", "ab", "b", "bab"}}} {
		for range 300 {
			var b strings.Builder
			for range rng.IntN(12) {
				w := tc.words[rng.IntN(len(tc.words))]
				if rng.IntN(3) == 0 {
					w = w[rng.IntN(len(w)):]
				}
				if rng.IntN(2) == 0 {
					w = strings.ToUpper(w)
				}
				b.WriteString(w)
				b.WriteString([]string{"", " ", "x", "\n", "é"}[rng.IntN(5)])
			}
			text := b.String()
			got := tc.m.hits(text, nil)
			var want []acHit
			lower := strings.ToLower(text)
			for end := 1; end <= len(text); end++ {
				for id, w := range tc.words {
					if end >= len(w) && lower[end-len(w):end] == w {
						want = append(want, acHit{id: int32(id), end: int32(end)})
					}
				}
			}
			key := func(h acHit) int64 { return int64(h.end)<<32 | int64(h.id) }
			slices.SortFunc(got, func(a, b acHit) int { return int(key(a) - key(b)) })
			if !slices.Equal(got, want) {
				t.Fatalf("text %q: hits %v, want %v", text, got, want)
			}
		}
	}
}

// testKeywords are the instruction rules' keywords in the matcher's id
// order, as compileInstrRules numbers them.
func testKeywords(t *testing.T) []string {
	t.Helper()
	rules, _ := compileInstrRules()
	seen := map[string]bool{}
	var words []string
	for _, r := range rules {
		for _, g := range r.need {
			for _, k := range g {
				if !seen[k] {
					seen[k] = true
					words = append(words, k)
				}
			}
		}
	}
	return words
}

// TestInstrPatternsCompile: every instruction rule's patterns compile
// (they are compiled on first use, which a scan may never reach).
func TestInstrPatternsCompile(t *testing.T) {
	rules, _ := compileInstrRules()
	for _, r := range rules {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s (%s): %v", r.id, r.what, p)
				}
			}()
			if p := r.patterns(); p.re == nil {
				t.Errorf("%s (%s): no pattern", r.id, r.what)
			}
		}()
	}
}
