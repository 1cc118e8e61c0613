package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/skillpm/skillpm/pkg/skill"
)

// ReportSchema names the report's JSON shape (its "schema" field). It
// changes only when the shape changes incompatibly. A signed audit
// attestation does not carry the report, only its digest: see
// attest.PredicateType.
const ReportSchema = "https://skillpm.dev/audit/v1"

// Severity ranks a finding.
type Severity int

// Severities, in increasing order of gravity.
const (
	Low Severity = iota + 1
	Medium
	High
	Critical
)

// String renders the severity as "low", "medium", "high" or "critical".
func (s Severity) String() string {
	switch s {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return "unknown"
}

// MarshalText renders the severity by name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Low || s > Critical {
		return nil, fmt.Errorf("audit: invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "low", "medium", "high" or "critical".
func ParseSeverity(name string) (Severity, error) {
	for s := Low; s <= Critical; s++ {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want low, medium, high or critical)", ErrSeverity, name)
}

// lower is the severity one step down; low stays low, so a finding is
// never dropped by a downgrade.
func (s Severity) lower() Severity {
	if s > Low {
		return s - 1
	}
	return s
}

// Finding is one problem the audit found, positioned like a compiler
// message. Rule is stable across releases; Message and Hint are for people.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is slash-separated and relative to the skill directory.
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Message says what was found; Evidence quotes it, with invisible and
	// control characters escaped so the report cannot hide anything itself.
	Message  string `json:"message"`
	Evidence string `json:"evidence,omitempty"`
	Hint     string `json:"hint,omitempty"`
	// Context is set when instruction text sat in a fenced or indented code
	// block ("fence"), an inline code span ("code"), a block quote or
	// quotation marks ("quote"): its severity is then one step lower than
	// the rule's, and Downgraded is true.
	Context    string `json:"context,omitempty"`
	Downgraded bool   `json:"downgraded,omitempty"`
	// Unreadable marks content that could not be audited.
	Unreadable bool `json:"unreadable,omitempty"`
	// Malicious marks a pattern malware uses and honest skills do not
	// (a paste site, a password-protected archive, code fetched from a raw
	// IP, plain HTTP or a domain the skill is not about and run, credential
	// stores sent to another host): it blocks at every tier, experimental
	// included.
	Malicious bool `json:"malicious,omitempty"`
	// Vendor is set when fetched code comes from the domain of the product
	// the skill is about or from a known toolchain installer: the host
	// named. Such an installer needs review instead of blocking at
	// community.
	Vendor string `json:"vendor,omitempty"`
}

// Position renders "file:line:col" with whatever parts are known.
func (f Finding) Position() string { return skill.Position(f.File, f.Line, f.Column) }

// String renders the finding compiler-style: "file:line:col: severity: [ID] message".
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: [%s] %s", f.Position(), f.Severity, f.Rule, f.Message)
}

// FileEntry is one file the audit covered, with its content digest, so the
// report says exactly which bytes it speaks about.
type FileEntry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Kind is how the file was read: instructions, python, shell, make
	// (the recipes of a Makefile or justfile, read as shell), javascript,
	// typescript, manifest, data, binary, unsupported or skipped.
	Kind string `json:"kind"`
}

// Report is the result of auditing one skill directory. Its canonical JSON
// is what an audit attestation signs; nothing in it depends on where the
// skill was on disk or when the audit ran.
type Report struct {
	Schema string `json:"schema"`
	// Tool names the auditing program and its version, as the caller says.
	Tool string `json:"tool"`
	// Skill, Version and Tier come from SKILL.md; Tier is the tier the skill
	// claims (experimental when it claims none).
	Skill   string `json:"skill"`
	Version string `json:"version,omitempty"`
	Tier    string `json:"tier"`
	// Permissions are the declared metadata.gaia.permissions, as written.
	Permissions []string    `json:"permissions"`
	Files       []FileEntry `json:"files"`
	Findings    []Finding   `json:"findings"`
}

// sortFindings orders findings by file, line, column, rule, then message,
// so the same skill always yields the same report bytes.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Message != b.Message {
			return a.Message < b.Message
		}
		return a.Evidence < b.Evidence
	})
}

// CanonicalJSON renders the report with object keys sorted, no
// insignificant white space and no HTML escaping (the same canonical form
// pkg/skill uses for the artifact config), so equal reports are equal bytes.
func (r *Report) CanonicalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("audit: encoding report: %w", err)
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("audit: encoding report: %w", err)
	}
	return skill.CanonicalJSON(v)
}

// Digest is "sha256:<hex>" of the canonical JSON: the subject an audit
// attestation will sign.
func (r *Report) Digest() (string, error) {
	b, err := r.CanonicalJSON()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Counts returns the number of findings per rule id.
func (r *Report) Counts() map[string]int {
	m := make(map[string]int)
	for _, f := range r.Findings {
		m[f.Rule]++
	}
	return m
}

// CountBySeverity returns the number of findings per severity.
func (r *Report) CountBySeverity() map[Severity]int {
	m := make(map[Severity]int)
	for _, f := range r.Findings {
		m[f.Severity]++
	}
	return m
}

// Unreadable reports whether any part of the skill could not be audited.
func (r *Report) Unreadable() bool {
	for _, f := range r.Findings {
		if f.Unreadable {
			return true
		}
	}
	return false
}
