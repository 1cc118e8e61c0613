package errdef

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

type typed struct{ err error }

func (e *typed) Error() string { return "typed: " + e.err.Error() }
func (e *typed) Unwrap() error { return e.err }
func (e *typed) Class() Class  { return None }

func TestClassOf(t *testing.T) {
	usage := New(Usage, "bad")
	trust := New(Trust, "refused")
	for _, tc := range []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, None},
		{"plain", errors.New("x"), None},
		{"sentinel", usage, Usage},
		{"wrapped", fmt.Errorf("a: %w", usage), Usage},
		{"outermost wins", WithClass(Conflict, fmt.Errorf("a: %w", usage)), Conflict},
		{"join first classed", errors.Join(errors.New("x"), trust, usage), Trust},
		{"typed defers to cause", &typed{fmt.Errorf("b: %w", trust)}, Trust},
		{"typed unclassed cause", &typed{errors.New("x")}, None},
	} {
		if got := ClassOf(tc.err); got != tc.want {
			t.Errorf("%s: ClassOf = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !errors.Is(fmt.Errorf("w: %w", usage), usage) {
		t.Error("a classed sentinel lost its identity under wrapping")
	}
	if WithClass(Usage, nil) != nil {
		t.Error("WithClass(nil) is not nil")
	}
}

func TestMaps(t *testing.T) {
	exit := map[Class]int{None: 1, Usage: 2, Validation: 3, Resolution: 4, NotFound: 4, Trust: 5, Registry: 6, Conflict: 1, Internal: 1}
	status := map[Class]int{None: 500, Usage: 400, Validation: 422, Resolution: 422, Trust: 422, Registry: http.StatusBadGateway, Conflict: 409, NotFound: 404, Internal: 500}
	for _, c := range append(Classes(), None) {
		if got := c.ExitCode(); got != exit[c] {
			t.Errorf("%v.ExitCode() = %d, want %d", c, got, exit[c])
		}
		if got := c.HTTPStatus(); got != status[c] {
			t.Errorf("%v.HTTPStatus() = %d, want %d", c, got, status[c])
		}
		if c != None && c.String() == None.String() {
			t.Errorf("class %d has no name", c)
		}
	}
}

// TestMark: a marked error keeps its message and cause, errors.Is finds
// the mark and the cause, the class is the mark's, a mark of class None
// defers to the cause's, and nothing is marked on nil.
func TestMark(t *testing.T) {
	mark := New(Usage, "invalid request")
	where := New(None, "git source")
	cause := New(NotFound, "no such thing")
	err := Mark(mark, fmt.Errorf("x: %w", cause))
	if err.Error() != "x: no such thing" {
		t.Errorf("message %q, want the cause's", err)
	}
	if !errors.Is(err, mark) || !errors.Is(err, cause) {
		t.Errorf("errors.Is finds mark %v, cause %v; want both", errors.Is(err, mark), errors.Is(err, cause))
	}
	if c := ClassOf(err); c != Usage {
		t.Errorf("class %s, want the mark's (usage)", c)
	}
	if c := ClassOf(Mark(where, cause)); c != NotFound {
		t.Errorf("class of a classless mark %s, want the cause's (not found)", c)
	}
	if Mark(mark, nil) != nil {
		t.Error("Mark(mark, nil) is not nil")
	}
}
