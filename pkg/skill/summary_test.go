package skill

import (
	"reflect"
	"testing"
)

// TestSummarize: a skill with an error is not valid; diagnostics are
// counted by severity and by code.
func TestSummarize(t *testing.T) {
	got := Summarize([]Result{
		{Dir: "a"},
		{Dir: "b", Diagnostics: Diagnostics{{Code: "x", Severity: Error}, {Code: "y", Severity: Warning}}},
		{Dir: "c", Diagnostics: Diagnostics{{Code: "y", Severity: Warning}}},
	})
	want := Summary{Skills: 3, Valid: 2, Errors: 1, Warnings: 2, Codes: map[string]int{"x": 1, "y": 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
