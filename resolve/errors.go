package resolve

import "errors"

// Sentinel errors. Callers match them with errors.Is; every one comes
// wrapped with the skill, version or range it concerns.
var (
	// ErrNotFound is what a [Source] wraps when it does not know a skill at
	// all. The solver then treats the skill as having no versions, so the
	// explanation says so, instead of aborting.
	ErrNotFound = errors.New("skill not found")

	// ErrNoSolution is the sentinel behind every [*NoSolutionError]: no set
	// of versions satisfies the requirements.
	ErrNoSolution = errors.New("no solution")

	// ErrInvalidRange reports a version range Masterminds/semver rejects.
	ErrInvalidRange = errors.New("invalid version range")

	// ErrUnsupportedRange reports a range Masterminds accepts but whose set
	// of versions cannot be represented exactly (see [ParseRange]).
	ErrUnsupportedRange = errors.New("unsupported version range")

	// ErrInvalidName reports an empty skill name in the requirements.
	ErrInvalidName = errors.New("invalid skill name")

	// ErrStepLimit reports a solve that needed more than Options.MaxSteps
	// decisions and conflict resolutions.
	ErrStepLimit = errors.New("version solving step limit exceeded")

	// ErrInvalidOptions reports [Options] that fail their own validation.
	ErrInvalidOptions = errors.New("invalid options")
)

// NoSolutionError reports that the requirements cannot be satisfied, with
// the solver's proof of it written out in English, one sentence per line,
// in the style of Dart pub and uv: each line derives a fact from external
// facts ("fix 1.0.0 depends on code ^2") and earlier lines, a fact reused
// far from where it is derived is numbered "(1)" and cited as such, and the
// last lines say why version solving failed and what could be changed.
//
// The text depends only on the requirements and on what the [Source]
// returned, never on map iteration order, so it is stable for golden tests.
type NoSolutionError struct {
	// Explanation is the full multi-line text, without a trailing newline.
	Explanation string
	// Requirements lists, sorted, the skills whose requirement by the
	// project takes part in the conflict: loosening one of those is one way
	// out.
	Requirements []string
}

// Error returns the explanation.
func (e *NoSolutionError) Error() string { return e.Explanation }

// Unwrap returns ErrNoSolution.
func (e *NoSolutionError) Unwrap() error { return ErrNoSolution }
