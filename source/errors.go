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

// Unwrap makes errors.Is(err, ErrInvalid) true, and errors.Is(err,
// ErrInvalidRef): a source is the part of a reference before the name,
// so callers that tell a bad reference tell a bad source too.
func (e *Error) Unwrap() []error { return []error{ErrInvalid, ErrInvalidRef} }

// ErrInvalidRef is wrapped by every *RefError: a reference that does not
// parse.
var ErrInvalidRef = errdef.New(errdef.Usage, "invalid reference")

// RefError is a reference that does not parse, and why.
type RefError struct {
	// Ref is the text as given (cut when very long); "" for an empty
	// reference.
	Ref string
	// Reason says what is wrong and what to write instead.
	Reason string
}

// Error renders `invalid reference: "REF": reason`.
func (e *RefError) Error() string {
	if e.Ref == "" {
		return ErrInvalidRef.Error() + ": " + e.Reason
	}
	return fmt.Sprintf("%v: %q: %s", ErrInvalidRef, e.Ref, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidRef) true.
func (e *RefError) Unwrap() error { return ErrInvalidRef }

// SelectorError is the text after "@" of a reference that is neither a
// version, a range nor a digest.
type SelectorError struct {
	// Selector is the text after "@".
	Selector string
	// Digest is true when the text is written as a digest (it holds a
	// ":"), so a caller that takes no digests can say so.
	Digest bool
	// Reason says what is wrong.
	Reason string
}

// Error renders `invalid reference: "SELECTOR": reason`.
func (e *SelectorError) Error() string {
	return fmt.Sprintf("%v: %q: %s", ErrInvalidRef, e.Selector, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidRef) true.
func (e *SelectorError) Unwrap() error { return ErrInvalidRef }
