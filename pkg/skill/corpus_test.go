package skill

import (
	"context"
	"sort"
	"testing"

	"github.com/skillpm/skillpm/internal/corpustest"
)

// corpusSkills lists every directory of the corpus holding a SKILL.md.
func corpusSkills(t testing.TB) []string { return corpustest.Skills(t) }

func TestCorpusLenient(t *testing.T) {
	dirs := corpusSkills(t)
	if len(dirs) < 800 {
		t.Fatalf("found only %d corpus skills", len(dirs))
	}
	counts := map[string]int{}
	failed := 0
	for _, dir := range dirs {
		s, ds := Load(context.Background(), dir, Options{Mode: Lenient})
		for _, d := range ds {
			counts[d.Code]++
		}
		parses := s != nil
		if parses && s.Description != "" && ds.HasErrors() {
			// Lenient load must succeed for every skill whose frontmatter parses
			// and has a description, unless its execution or permissions are
			// unusable, or no host would load it (a lowercase skill.md, blank
			// lines before the frontmatter: lenient follows the hosts).
			for _, d := range ds.Errors() {
				switch d.Code {
				case CodeExecutionInvalid, CodeCallInvalid, CodeStepPathInvalid, CodeStepMissing, CodePermissionInvalid,
					CodeLowercaseSkillFile, CodeBlankBeforeFront:
				default:
					t.Errorf("%s: lenient error %s", dir, d)
				}
			}
		}
		if !parses || ds.HasErrors() {
			failed++
		}
	}
	var codes []string
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		t.Logf("%-28s %d", c, counts[c])
	}
	t.Logf("%d skills, %d unusable in lenient mode", len(dirs), failed)
}
