// Package advisory reads, checks and indexes a registry's signed advisory
// feed: advisories in the OSV schema (the ossf/osv-schema Go binding)
// naming skills by repository and version range, and optionally digest,
// with a severity and a kind (malicious, revoked, vulnerability). A feed
// is obeyed only when a signer the trust policy names as an advisor
// signed it and it has not expired; each advisory only for the
// repositories that advisor may advise on.
package advisory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/ossf/osv-schema/bindings/go/osvschema"
	"google.golang.org/protobuf/encoding/protojson"
)

// Schema is the feed document's schema key.
const Schema = "skillpm.advisories/v1"

// Ecosystem is the OSV ecosystem of skills; a package name is the
// skill's repository as trust policies name it (embedded/web-research,
// ghcr.io/acme/skills/web-research), or a bare skill name for the skill
// of that name in the feed's own source (which survives mirroring).
const Ecosystem = "skillpm"

// Kinds of advisory, in database_specific.kind.
const (
	// KindMalicious is a skill published to harm (OSV's MAL- entries):
	// refused everywhere, installed copies quarantined.
	KindMalicious = "malicious"
	// KindRevoked is a version its publisher or marketplace withdrew
	// for cause: refused as a malicious one is.
	KindRevoked = "revoked"
	// KindVulnerability is a flaw: reported, not refused.
	KindVulnerability = "vulnerability"
)

// Severities, in database_specific.severity (GitHub's words).
var Severities = []string{"low", "moderate", "high", "critical"}

// Feed is a parsed advisory feed document.
type Feed struct {
	// Issued and Expires bound the feed's freshness: after Expires it is
	// stale and not obeyed.
	Issued  time.Time
	Expires time.Time
	// Advisories are the feed's entries, in document order.
	Advisories []*Advisory
}

// Advisory is one OSV entry with skillpm's reading of it.
type Advisory struct {
	// OSV is the entry exactly as the feed gives it.
	OSV *osvschema.Vulnerability
	// Kind is database_specific.kind, KindVulnerability when absent.
	Kind string
	// Severity is database_specific.severity, "" when absent.
	Severity string
	// Affected are the skills it names.
	Affected []Affected
}

// ID is the OSV id.
func (a *Advisory) ID() string { return a.OSV.GetId() }

// Refuses reports whether the advisory withdraws what it names
// (malicious or revoked) rather than warning about it.
func (a *Advisory) Refuses() bool { return a.Kind == KindMalicious || a.Kind == KindRevoked }

// Affected is one package of an advisory: a repository, and which of its
// versions (ranges, listed versions) or digests (manifest or tree) it
// names. An empty selection names every version.
type Affected struct {
	Repository string
	ranges     []span
	Versions   []string
	Digests    []string
}

// span is one OSV SEMVER range interval: introduced (nil: from the
// start) up to fixed (exclusive) or lastAffected (inclusive); both nil
// means no upper bound.
type span struct {
	introduced, fixed, lastAffected *semver.Version
}

func (s span) contains(v *semver.Version) bool {
	if s.introduced != nil && v.LessThan(s.introduced) {
		return false
	}
	if s.fixed != nil && !v.LessThan(s.fixed) {
		return false
	}
	if s.lastAffected != nil && v.GreaterThan(s.lastAffected) {
		return false
	}
	return true
}

// Names reports whether a names version v (nil when unknown) or one of
// digests of a.Repository.
func (a *Affected) Names(v *semver.Version, digests ...string) bool {
	for _, d := range digests {
		if d != "" && slices.Contains(a.Digests, d) {
			return true
		}
	}
	if len(a.ranges) == 0 && len(a.Versions) == 0 {
		return len(a.Digests) == 0
	}
	if v == nil {
		return false
	}
	if slices.Contains(a.Versions, v.Original()) {
		return true
	}
	for _, s := range a.ranges {
		if s.contains(v) {
			return true
		}
	}
	return false
}

// document is the feed's JSON: OSV entries, each read with the OSV
// binding.
type document struct {
	Schema     string            `json:"schema"`
	Issued     time.Time         `json:"issued"`
	Expires    time.Time         `json:"expires"`
	Advisories []json.RawMessage `json:"advisories"`
}

// Parse reads a feed document; name says where it came from in errors.
// Every entry must parse with the OSV binding and name at least one
// skill of Ecosystem; an expiry is required (a feed that never expires
// would let a mirror freeze its readers on it).
func Parse(name string, data []byte) (*Feed, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrInvalidFeed, err)
	}
	if doc.Schema != Schema {
		return nil, fmt.Errorf("%s: %w: schema %q, want %q", name, ErrInvalidFeed, doc.Schema, Schema)
	}
	if doc.Expires.IsZero() {
		return nil, fmt.Errorf("%s: %w: no expires: a feed must say until when it holds (RFC 3339)", name, ErrInvalidFeed)
	}
	if !doc.Issued.IsZero() && !doc.Expires.After(doc.Issued) {
		return nil, fmt.Errorf("%s: %w: expires %s is not after issued %s", name, ErrInvalidFeed, doc.Expires.Format(time.RFC3339), doc.Issued.Format(time.RFC3339))
	}
	f := &Feed{Issued: doc.Issued, Expires: doc.Expires}
	ids := map[string]bool{}
	for i, raw := range doc.Advisories {
		a, err := parseAdvisory(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: advisories[%d]: %w", name, i, err)
		}
		if ids[a.ID()] {
			return nil, fmt.Errorf("%s: advisories[%d]: %w: id %s is used twice", name, i, ErrInvalidFeed, a.ID())
		}
		ids[a.ID()] = true
		f.Advisories = append(f.Advisories, a)
	}
	return f, nil
}

func parseAdvisory(raw json.RawMessage) (*Advisory, error) {
	var v osvschema.Vulnerability
	if err := protojson.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: not an OSV entry: %v", ErrInvalidFeed, err)
	}
	if v.GetId() == "" {
		return nil, fmt.Errorf("%w: no id", ErrInvalidFeed)
	}
	a := &Advisory{OSV: &v, Kind: KindVulnerability}
	at := v.GetId()
	ds := v.GetDatabaseSpecific().GetFields()
	if k := ds["kind"]; k != nil {
		a.Kind = k.GetStringValue()
		if !slices.Contains([]string{KindMalicious, KindRevoked, KindVulnerability}, a.Kind) {
			return nil, fmt.Errorf("%s: %w: database_specific.kind %q: use malicious, revoked or vulnerability", at, ErrInvalidFeed, a.Kind)
		}
	} else if strings.HasPrefix(at, "MAL-") {
		a.Kind = KindMalicious
	}
	if s := ds["severity"]; s != nil {
		a.Severity = s.GetStringValue()
		if !slices.Contains(Severities, a.Severity) {
			return nil, fmt.Errorf("%s: %w: database_specific.severity %q: use %s", at, ErrInvalidFeed, a.Severity, strings.Join(Severities, ", "))
		}
	}
	if len(v.GetAffected()) == 0 {
		return nil, fmt.Errorf("%s: %w: names no affected skill", at, ErrInvalidFeed)
	}
	for j, af := range v.GetAffected() {
		pkg := af.GetPackage()
		if pkg.GetEcosystem() != Ecosystem || pkg.GetName() == "" {
			return nil, fmt.Errorf("%s: affected[%d]: %w: package must be {ecosystem: %q, name: REPOSITORY}", at, j, ErrInvalidFeed, Ecosystem)
		}
		out := Affected{Repository: pkg.GetName(), Versions: af.GetVersions()}
		for _, vs := range af.GetVersions() {
			if _, err := semver.StrictNewVersion(vs); err != nil {
				return nil, fmt.Errorf("%s: affected[%d]: %w: version %q: %v", at, j, ErrInvalidFeed, vs, err)
			}
		}
		for k, r := range af.GetRanges() {
			if r.GetType() != osvschema.Range_SEMVER && r.GetType() != osvschema.Range_ECOSYSTEM {
				return nil, fmt.Errorf("%s: affected[%d].ranges[%d]: %w: type %s: use SEMVER", at, j, k, ErrInvalidFeed, r.GetType())
			}
			spans, err := spansOf(r.GetEvents())
			if err != nil {
				return nil, fmt.Errorf("%s: affected[%d].ranges[%d]: %w: %v", at, j, k, ErrInvalidFeed, err)
			}
			out.ranges = append(out.ranges, spans...)
		}
		if d := af.GetDatabaseSpecific().GetFields()["digests"]; d != nil {
			for _, x := range d.GetListValue().GetValues() {
				s := x.GetStringValue()
				if !strings.HasPrefix(s, "sha256:") || len(s) != len("sha256:")+64 {
					return nil, fmt.Errorf("%s: affected[%d]: %w: digest %q: write sha256:<64 hex>", at, j, ErrInvalidFeed, s)
				}
				out.Digests = append(out.Digests, s)
			}
		}
		a.Affected = append(a.Affected, out)
	}
	return a, nil
}

// spansOf reads OSV range events: each introduced opens an interval
// that the next fixed or last_affected closes.
func spansOf(events []*osvschema.Event) ([]span, error) {
	var out []span
	var open *span
	parse := func(s string) (*semver.Version, error) {
		v, err := semver.StrictNewVersion(s)
		if err != nil {
			return nil, fmt.Errorf("version %q: %v", s, err)
		}
		return v, nil
	}
	for _, e := range events {
		switch {
		case e.GetIntroduced() != "":
			if open != nil {
				out = append(out, *open)
			}
			open = &span{}
			if e.GetIntroduced() != "0" {
				v, err := parse(e.GetIntroduced())
				if err != nil {
					return nil, err
				}
				open.introduced = v
			}
		case e.GetFixed() != "" || e.GetLastAffected() != "":
			if open == nil {
				return nil, fmt.Errorf("a fixed or last_affected event before any introduced")
			}
			var err error
			if e.GetFixed() != "" {
				open.fixed, err = parse(e.GetFixed())
			} else {
				open.lastAffected, err = parse(e.GetLastAffected())
			}
			if err != nil {
				return nil, err
			}
			out = append(out, *open)
			open = nil
		}
	}
	if open != nil {
		out = append(out, *open)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no introduced event")
	}
	return out, nil
}
