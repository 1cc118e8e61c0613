package source

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// ErrInvalid is wrapped by every *Error: a source that does not parse.
var ErrInvalid = errdef.New(errdef.Usage, "invalid source")

// Error is a source that does not parse, and why.
type Error struct {
	// Source is the text as given (cut when very long).
	Source string
	// Reason says what is wrong and what to write instead.
	Reason string
}

// Error renders `"SOURCE": reason`; callers prefix their own sentinel
// ("invalid reference: …").
func (e *Error) Error() string { return fmt.Sprintf("%q: %s", e.Source, e.Reason) }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }
