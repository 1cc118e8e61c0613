package skill

import (
	"fmt"
	"sort"
	"strconv"
)

// Severity ranks a diagnostic.
type Severity int

// Severities, in increasing order of gravity.
const (
	Warning Severity = iota + 1
	Error
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "unknown"
}

// MarshalText renders the severity as "warning" or "error".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses "warning" or "error".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "warning":
		*s = Warning
	case "error":
		*s = Error
	default:
		return fmt.Errorf("unknown severity %q", b)
	}
	return nil
}

// Diagnostic is one problem found in a skill, positioned like a compiler
// message. Code is stable across releases so tools can filter on it.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
}

// String renders the diagnostic as "file:line:col: severity: message [code]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", Position(d.File, d.Line, d.Column), d.Severity, d.Message, d.Code)
}

// Position renders a place in a file as compilers do, "file:line:col",
// with the parts that are known (line and column 0 are unknown; a column
// without a line is not shown). Every diagnostic, problem and finding of
// the project is placed this way, so editors and CI annotate them alike.
func Position(file string, line, column int) string {
	if line <= 0 {
		return file
	}
	if column <= 0 {
		return file + ":" + strconv.Itoa(line)
	}
	return file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(column)
}

// Diagnostics is a list of diagnostics in file order.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return len(ds.Errors()) > 0 }

// Errors returns only the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Has reports whether a diagnostic with the given code is present.
func (ds Diagnostics) Has(code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, line, column, then code.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Code < b.Code
	})
}

// Err returns a *ValidationError when ds holds errors, else nil.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return &ValidationError{Diagnostics: ds}
}

func itoa(n int) string { return strconv.Itoa(n) }
