package engine

import (
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/internal/reftable"
)

// TestRefTableAdd checks the add column of the reference grammar's
// table: what skillpm add writes into skills.yaml for each form.
func TestRefTableAdd(t *testing.T) {
	for _, row := range reftable.Read(t, filepath.Join("..", "source", "testdata", "refs.tsv")) {
		got := "err"
		if name, rng, err := addArg(row.Form); err == nil {
			got = name + "|" + rng
		}
		if got != row.Add {
			t.Errorf("refs.tsv:%d: addArg(%q) = %s, the table says %s", row.Line, row.Form, got, row.Add)
		}
	}
}
