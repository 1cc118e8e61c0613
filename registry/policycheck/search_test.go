package policycheck

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillpm/skillpm/registry"
)

// generatedIndex is an index of 1,000 skills: 990 fillers named
// tool-NNN with dull descriptions, and ten whose names and descriptions
// the ranking tests aim at.
func generatedIndex() *registry.Index {
	idx := &registry.Index{Version: registry.IndexFormat, Source: "test"}
	topics := []string{"alpha", "beta", "gamma", "delta", "omega"}
	for i := range 990 {
		idx.Skills = append(idx.Skills, registry.IndexSkill{Name: fmt.Sprintf("tool-%03d", i), Latest: "1.0.0",
			Description: fmt.Sprintf("Generic tool number %d about %s. Use when needed.", i, topics[i%len(topics)])})
	}
	for _, s := range []struct{ name, desc string }{
		{"pdf", "Read documents."},
		{"pdf-extract", "Extract text and tables from PDF files."},
		{"pdfium-render", "Render pages."},
		{"convert-pdf", "Convert office files to PDF."},
		{"doc-reader", "Reads PDF files, PDF forms and PDF scans for PDF lovers."},
		{"web-research", "Search the web and summarise pages."},
		{"web", "Fetch one page."},
		{"research-notes", "Keep notes on web research."},
		{"git-helper", "Run git commands safely."},
		{"gitlab-ci", "Edit GitLab CI pipelines; not git itself."},
	} {
		idx.Skills = append(idx.Skills, registry.IndexSkill{Name: s.name, Latest: "1.0.0", Description: s.desc})
	}
	slices.SortFunc(idx.Skills, func(a, b registry.IndexSkill) int { return cmpString(a.Name, b.Name) })
	return idx
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestSearchRanking checks expected orderings over the 1,000-skill index:
// exact name, then name prefix, then name word, then description, with
// term frequency (capped) and ties by name.
func TestSearchRanking(t *testing.T) {
	idx := generatedIndex()
	tests := []struct {
		query string
		want  []string // the first hits, in order
		total int      // how many match, -1 to skip
	}{
		// exact > prefix > word > description (doc-reader: 3 capped hits
		// still below any name match).
		{"pdf", []string{"pdf", "pdf-extract", "pdfium-render", "convert-pdf", "doc-reader"}, 5},
		// both terms: the joined exact name wins, then the names holding
		// both words, then one word in the name plus the description.
		{"web research", []string{"web-research", "web", "research-notes"}, 3},
		{"git", []string{"git-helper", "gitlab-ci"}, 2},
		{"GIT", []string{"git-helper", "gitlab-ci"}, 2},
		// a description-only term: term frequency then name.
		{"files", []string{"convert-pdf", "doc-reader", "pdf-extract"}, 3},
		// 198 fillers share "gamma" in their description: ties by name.
		{"gamma", []string{"tool-002", "tool-007", "tool-012"}, 198},
		{"tool-123", []string{"tool-123"}, -1},
		{"nothing-like-this", nil, 0},
	}
	for _, tc := range tests {
		hits := SearchIndex(idx, tc.query)
		var got []string
		for _, h := range hits[:min(len(tc.want), len(hits))] {
			got = append(got, h.Skill.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v first", tc.query, got, tc.want)
		}
		if tc.total >= 0 && len(hits) != tc.total {
			t.Errorf("%q: %d hits, want %d", tc.query, len(hits), tc.total)
		}
	}
	if h := SearchIndex(idx, "pdf"); h[0].Score != ScoreExactName || h[0].Why[0] != "exact name" {
		t.Errorf("pdf: score %d why %v", h[0].Score, h[0].Why)
	}
}

func TestSearchOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts SearchOptions
		ok   bool
	}{
		{SearchOptions{}, true},
		{SearchOptions{Verify: &VerifyOptions{}, RequireSignedIndex: true}, true},
		{SearchOptions{RequireSignedIndex: true}, false},
		{SearchOptions{Limit: -1}, false},
	} {
		err := tc.opts.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, registry.ErrInvalidOptions)) {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}

// TestSearch ranks a source's index; without trust material every hit is
// unverified, with no problem reported.
func TestSearch(t *testing.T) {
	ctx := context.Background()
	c := testClient(t)
	src, _ := c.Layout(filepath.Join(t.TempDir(), "src"))
	publish(t, c, src, build(t, "web-research", "1.1.0", "verified", "network:read"))
	publish(t, c, src, build(t, "notes", "0.1.0", "community"))
	idx, err := c.BuildIndex(ctx, src, registry.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PushIndex(ctx, src, idx); err != nil {
		t.Fatal(err)
	}
	res, err := Search(ctx, c, src, "web", SearchOptions{Verify: &VerifyOptions{}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Skill.Name != "web-research" || res.Hits[0].Attested != Unverified || res.Hits[0].Problem != "" {
		t.Fatalf("search: %v %+v", err, res)
	}
	if _, err := Search(ctx, c, src, "web", SearchOptions{RequireSignedIndex: true}); !errors.Is(err, registry.ErrInvalidOptions) {
		t.Errorf("RequireSignedIndex without Verify: %v", err)
	}
}
