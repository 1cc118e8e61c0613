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
// the test, labelled in labels.txt. A malicious skill must block at
// community; a benign one must not. It prints precision and recall (the
// LABELLED line, which make bench shows).
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
	var tp, fp, fn, tn int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 || fields[1] != "malicious" && fields[1] != "benign" {
			t.Fatalf("labels.txt: bad line %q", line)
		}
		rep, err := s.Scan(t.Context(), filepath.Join(root, fields[0]))
		if err != nil {
			t.Fatalf("%s: %v", fields[0], err)
		}
		v, err := rep.Verdict("community")
		if err != nil {
			t.Fatal(err)
		}
		blocked := v.Decision == Block
		switch {
		case fields[1] == "malicious" && blocked:
			tp++
		case fields[1] == "malicious":
			fn++
			t.Errorf("%s (malicious): %s at community, want block:%s", fields[0], v.Decision, dump(rep))
		case blocked:
			fp++
			t.Errorf("%s (benign): blocked at community:%s", fields[0], dump(rep))
		default:
			tn++
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
	if tp+fn == 0 || tn+fp == 0 {
		t.Fatal("the labelled set needs malicious and benign cases")
	}
	t.Logf("LABELLED %d %s %s", tp+fp+fn+tn, ratio(tp, tp+fp), ratio(tp, tp+fn))
}
