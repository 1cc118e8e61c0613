package audit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabelled audits the labelled set in testdata/labelled: for each
// class of the audit, malicious skills and benign look-alikes written for
// the test, labelled in labels.txt. A malicious skill (a pattern malware
// uses) must block at every tier, experimental included; an unsafe one
// (code fetched from the product's own server and run) at community and
// verified; a review one (remote instructions from the product's own
// site, a credential store sent to the skill's own service) must not block
// at community and must block at verified; a benign one must not block at
// community (nor, so, at experimental). It prints precision and recall per tier
// (the LABELLED lines, which make bench shows).
func TestLabelled(t *testing.T) {
	root := filepath.Join("testdata", "labelled")
	f, err := os.Open(filepath.Join(root, "labels.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := New(Options{Tool: "skillpm-test"})
	if err != nil {
		t.Fatal(err)
	}
	tiers := []string{"experimental", "community", "verified"}
	type counts struct{ tp, fp, fn, tn int }
	per := map[string]*counts{}
	for _, tier := range tiers {
		per[tier] = &counts{}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 || fields[1] != "malicious" && fields[1] != "unsafe" && fields[1] != "review" && fields[1] != "benign" {
			t.Fatalf("labels.txt: bad line %q", line)
		}
		rep, err := s.Scan(t.Context(), filepath.Join(root, fields[0]))
		if err != nil {
			t.Fatalf("%s: %v", fields[0], err)
		}
		for _, tier := range tiers {
			if fields[1] == "unsafe" && tier == "experimental" {
				continue // advisory there: neither a hit nor a miss
			}
			// A review case is a positive at verified only.
			malicious := fields[1] == "malicious" || fields[1] == "unsafe" || fields[1] == "review" && tier == "verified"
			v, err := rep.Verdict(tier)
			if err != nil {
				t.Fatal(err)
			}
			c := per[tier]
			blocked := v.Decision == Block
			switch {
			case malicious && blocked:
				c.tp++
			case malicious:
				c.fn++
				t.Errorf("%s (%s): %s at %s, want block:%s", fields[0], fields[1], v.Decision, tier, dump(rep))
			case blocked:
				c.fp++
				if tier != "verified" {
					t.Errorf("%s (%s): blocked at %s:%s", fields[0], fields[1], tier, dump(rep))
				}
			default:
				c.tn++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	ratio := func(a, b int) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", float64(a)/float64(b))
	}
	for _, tier := range tiers {
		c := per[tier]
		if c.tp+c.fn == 0 || c.tn+c.fp == 0 {
			t.Fatal("the labelled set needs malicious and benign cases")
		}
		// Benign skills may block at verified (an undeclared permission,
		// a vendor's installer): precision there is reported, not held.
		t.Logf("LABELLED %s %d %s %s", tier, c.tp+c.fp+c.fn+c.tn, ratio(c.tp, c.tp+c.fp), ratio(c.tp, c.tp+c.fn))
	}
}
