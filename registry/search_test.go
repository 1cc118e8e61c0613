package registry

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// generatedIndex is an index of 1,000 skills: 990 fillers named
// tool-NNN with dull descriptions, and ten whose names and descriptions
// the ranking tests aim at.
func generatedIndex() *Index {
	idx := &Index{Version: IndexFormat, Source: "test"}
	topics := []string{"alpha", "beta", "gamma", "delta", "omega"}
	for i := range 990 {
		idx.Skills = append(idx.Skills, IndexSkill{Name: fmt.Sprintf("tool-%03d", i), Latest: "1.0.0",
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
		idx.Skills = append(idx.Skills, IndexSkill{Name: s.name, Latest: "1.0.0", Description: s.desc})
	}
	slices.SortFunc(idx.Skills, func(a, b IndexSkill) int { return cmpString(a.Name, b.Name) })
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

// TestIndexRoundTrip builds, pushes and reads back the index of a layout
// source; a rebuild with nothing changed has the same digest; a source
// without an index is ErrNoIndex.
func TestIndexRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	src, _ := c.Layout(filepath.Join(t.TempDir(), "src"))
	if _, _, err := c.FetchIndex(ctx, src); err == nil || !errors.Is(err, ErrNoIndex) {
		t.Fatalf("no index: %v", err)
	}
	work := t.TempDir()
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "1.0.0", permissions: []string{"network:read"}}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "1.1.0", tier: "verified", permissions: []string{"network:read"}}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "web-research", version: "2.0.0-rc.1"}), PublishOptions{})
	publish(t, c, src, writeSkill(t, work, skillSpec{name: "notes", version: "0.1.0"}), PublishOptions{})
	idx, err := c.BuildIndex(ctx, src, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d1, err := c.PushIndex(ctx, src, idx)
	if err != nil {
		t.Fatal(err)
	}
	got, d2, err := freshClient(t, c).FetchIndex(ctx, src)
	if err != nil || d1.Digest != d2.Digest {
		t.Fatal(err, d1.Digest, d2.Digest)
	}
	if len(got.Skills) != 2 || got.Skills[1].Name != "web-research" {
		t.Fatalf("index: %+v", got.Skills)
	}
	w := got.Skills[1]
	if w.Latest != "1.1.0" || w.Tier != "verified" || !slices.Equal(w.Permissions, []string{"network:read"}) || len(w.Versions) != 3 || w.LatestDigest() == "" {
		t.Errorf("web-research entry: %+v", w)
	}
	idx2, err := c.BuildIndex(ctx, src, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d3, err := c.PushIndex(ctx, src, idx2); err != nil || d3.Digest != d1.Digest {
		t.Errorf("rebuild: %v %s != %s", err, d3.Digest, d1.Digest)
	}
	res, err := c.Search(ctx, src, "web", SearchOptions{Verify: &VerifyOptions{}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Attested != Unverified || res.Hits[0].Problem != "" {
		t.Fatalf("search: %v %+v", err, res)
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
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidOptions)) {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}
