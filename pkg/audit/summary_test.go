package audit

import (
	"reflect"
	"testing"
)

// TestSummary: a failure counts as failed whatever its verdict; a block
// is counted and named.
func TestSummary(t *testing.T) {
	s := NewSummary()
	s.Add("a", Verdict{Decision: Pass}, false)
	s.Add("b", Verdict{Decision: Review}, false)
	s.Add("c", Verdict{Decision: Block}, false)
	s.Add("d", Verdict{}, true)
	want := Summary{Skills: 4, Pass: 1, Review: 1, Block: 1, Failed: 1, Blocks: []string{"c"}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
	if NewSummary().Blocks == nil {
		t.Error("an empty summary's Blocks is nil: it would print as null")
	}
}
