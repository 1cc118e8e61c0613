// Package reftable reads the reference grammar's table
// (source/testdata/refs.tsv) for the tests of the packages that read
// references: every form is checked against every reader from one file,
// so the grammar cannot drift apart between them.
package reftable

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Row is one form and what each reader makes of it (the file's header
// says how each column is written).
type Row struct {
	// Form is the reference as a user writes it.
	Form string
	// Ref is source.ParseRef's answer, Name resolve's, Add skillpm add's.
	Ref, Name, Add string
	// Was notes where a replaced parser answered otherwise.
	Was string
	// Line is the row's line in the file.
	Line int
}

// Read returns the rows of the table at path, failing t on a malformed
// line.
func Read(t testing.TB, path string) []Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) < 4 || len(c) > 5 {
			t.Fatalf("%s:%d: want 4 or 5 tab-separated columns, found %d", path, n, len(c))
		}
		form, err := strconv.Unquote(c[0])
		if err != nil {
			t.Fatalf("%s:%d: the form is not a quoted string: %v", path, n, err)
		}
		r := Row{Form: form, Ref: c[1], Name: c[2], Add: c[3], Line: n}
		if len(c) == 5 {
			r.Was = c[4]
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 30 {
		t.Fatalf("%s: %d rows; the table is cut", path, len(rows))
	}
	return rows
}
