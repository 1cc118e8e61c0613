package registry

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/source"
	orasregistry "oras.land/oras-go/v2/registry"
)

// LayoutPrefix starts a reference or source stored as OCI image layouts on
// disk: "oci-layout:DIR/web-research@1.2.3", "oci-layout:DIR".
const LayoutPrefix = source.LayoutPrefix

// maxRefLen bounds a reference; real ones are well under 300 bytes.
const maxRefLen = 4096

// Kind says where a reference points.
type Kind int

const (
	// KindName is a bare skill name in the default source: "web-research".
	KindName Kind = iota
	// KindRemote is a repository in a remote OCI registry:
	// "ghcr.io/acme/skills/web-research".
	KindRemote
	// KindLayout is a repository stored as an OCI image layout in a
	// directory of layouts: "oci-layout:DIR/web-research".
	KindLayout
	// KindDir is a local skill directory: "./my-skill", "/abs/my-skill".
	KindDir
)

// String implements fmt.Stringer.
func (k Kind) String() string {
	switch k {
	case KindName:
		return "name"
	case KindRemote:
		return "remote"
	case KindLayout:
		return "oci-layout"
	case KindDir:
		return "directory"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// SelectorKind says how a reference picks a version.
type SelectorKind int

const (
	// SelectLatest picks the newest release (no pre-release): no "@".
	SelectLatest SelectorKind = iota
	// SelectVersion picks one exact version: "@1.2.3".
	SelectVersion
	// SelectRange picks the newest version in a Masterminds/semver range:
	// "@^1", "@~1.4", "@>=1.0, <2.0".
	SelectRange
	// SelectDigest picks a manifest by digest: "@sha256:…".
	SelectDigest
)

// Selector is the part of a reference after "@".
type Selector struct {
	// Kind is how the version is picked.
	Kind SelectorKind
	// Raw is the text after "@", "" for SelectLatest.
	Raw string
	// Version is set for SelectVersion.
	Version *semver.Version
	// Range is set for SelectRange.
	Range *semver.Constraints
	// Digest is set for SelectDigest.
	Digest digest.Digest
}

// String returns the selector as written after "@", "" for SelectLatest.
func (s Selector) String() string {
	switch s.Kind {
	case SelectVersion:
		return s.Version.String()
	case SelectDigest:
		return s.Digest.String()
	}
	return s.Raw
}

// ParseSelector reads the text after "@": a digest, an exact SemVer version
// (a tag's "_" is read as "+"), or a range. "" selects the newest release.
func ParseSelector(s string) (Selector, error) {
	if s == "" {
		return Selector{Kind: SelectLatest}, nil
	}
	if strings.Contains(s, ":") {
		d, err := digest.Parse(s)
		if err != nil {
			return Selector{}, fmt.Errorf("%w: %q is not a digest (sha256:<64 hex digits>): %v", ErrInvalidRef, s, err)
		}
		return Selector{Kind: SelectDigest, Raw: s, Digest: d}, nil
	}
	if v, err := semver.StrictNewVersion(strings.ReplaceAll(s, "_", "+")); err == nil {
		return Selector{Kind: SelectVersion, Raw: s, Version: v}, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return Selector{}, fmt.Errorf("%w: %q is neither a version (1.2.3), a range (^1, ~1.4, >=1.0 <2.0) nor a digest", ErrInvalidRef, s)
	}
	return Selector{Kind: SelectRange, Raw: s, Range: c}, nil
}

// Ref is a parsed skill reference (resolve-install.md, References).
type Ref struct {
	// Kind says where the reference points.
	Kind Kind
	// Source is "" for KindName, the registry and namespace for KindRemote
	// ("ghcr.io/acme/skills"), the directory of layouts for KindLayout, and
	// the directory itself for KindDir.
	Source string
	// Name is the skill name: the repository's last path element. It is ""
	// for KindDir.
	Name string
	// Selector picks the version; always SelectLatest for KindDir.
	Selector Selector
}

// String formats r so that ParseRef reads it back.
func (r Ref) String() string {
	var b strings.Builder
	switch r.Kind {
	case KindDir:
		return r.Source
	case KindRemote:
		b.WriteString(r.Source + "/")
	case KindLayout:
		b.WriteString(LayoutPrefix + r.Source + "/")
	}
	b.WriteString(r.Name)
	if sel := r.Selector.String(); sel != "" {
		b.WriteString("@" + sel)
	}
	return b.String()
}

// ParseRef classifies and parses a skill reference:
//
//	web-research, web-research@^1, web-research@1.2.3, web-research@sha256:…
//	ghcr.io/acme/skills/web-research@~1.4, localhost:5000/skills/x
//	oci-layout:DIR/web-research@1.2.3
//	./my-skill, ../x, /abs/my-skill, ., ..
//
// A path with a "/" is a remote reference only when its first element is a
// host (it holds a "." or ":" or is "localhost"), as Docker reads it;
// "skills/x" is refused rather than guessed (write ./skills/x for a
// directory). ParseRef looks at the text only: it neither checks that a
// directory exists nor contacts anything.
func ParseRef(s string) (Ref, error) {
	if len(s) > maxRefLen {
		return Ref{}, fmt.Errorf("%w: reference is %d bytes, more than %d", ErrInvalidRef, len(s), maxRefLen)
	}
	switch {
	case s == "":
		return Ref{}, fmt.Errorf("%w: empty reference", ErrInvalidRef)
	case strings.HasPrefix(s, LayoutPrefix):
		return parseLayoutRef(s)
	case isDirRef(s):
		return Ref{Kind: KindDir, Source: s}, nil
	}
	path, sel, err := splitSelector(s)
	if err != nil {
		return Ref{}, err
	}
	if !strings.Contains(path, "/") {
		if err := checkName(path, s); err != nil {
			return Ref{}, err
		}
		return Ref{Kind: KindName, Name: path, Selector: sel}, nil
	}
	host, _, _ := strings.Cut(path, "/")
	if !source.LooksLikeHost(host) {
		return Ref{}, fmt.Errorf("%w: %q: a registry reference starts with a host (ghcr.io/acme/skills/NAME, localhost:5000/NAME); write ./%s for a local directory", ErrInvalidRef, s, path)
	}
	i := strings.LastIndexByte(path, '/')
	src, name := path[:i], path[i+1:]
	if err := checkName(name, s); err != nil {
		return Ref{}, err
	}
	if _, err := orasregistry.ParseReference(path); err != nil {
		return Ref{}, fmt.Errorf("%w: %q: %v", ErrInvalidRef, s, err)
	}
	return Ref{Kind: KindRemote, Source: src, Name: name, Selector: sel}, nil
}

func parseLayoutRef(s string) (Ref, error) {
	rest := strings.TrimPrefix(s, LayoutPrefix)
	path, sel, err := splitSelector(rest)
	if err != nil {
		return Ref{}, err
	}
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return Ref{}, fmt.Errorf("%w: %q: write oci-layout:DIR/NAME (DIR holds one OCI layout per skill)", ErrInvalidRef, s)
	}
	dir, name := path[:i], path[i+1:]
	if dir == "" {
		dir = "/"
	}
	if err := checkName(name, s); err != nil {
		return Ref{}, err
	}
	return Ref{Kind: KindLayout, Source: dir, Name: name, Selector: sel}, nil
}

// splitSelector splits "path@sel" at the last "@" of the last path element.
func splitSelector(s string) (string, Selector, error) {
	last := strings.LastIndexByte(s, '/') + 1
	at := strings.LastIndexByte(s[last:], '@')
	if at < 0 {
		return s, Selector{Kind: SelectLatest}, nil
	}
	at += last
	raw := s[at+1:]
	if raw == "" {
		return "", Selector{}, fmt.Errorf("%w: %q: nothing after @ (write NAME@1.2.3, NAME@^1 or NAME@sha256:…)", ErrInvalidRef, s)
	}
	sel, err := ParseSelector(raw)
	if err != nil {
		return "", Selector{}, err
	}
	return s[:at], sel, nil
}

func checkName(name, ref string) error {
	if name == "" {
		return fmt.Errorf("%w: %q: no skill name", ErrInvalidRef, ref)
	}
	if strings.Contains(name, ":") {
		return fmt.Errorf("%w: %q: write the version after @ (NAME@1.2.3), not after a colon", ErrInvalidRef, ref)
	}
	if !skill.ValidName(name) {
		return fmt.Errorf("%w: %q: %q is not a skill name (lower-case letters and digits in words joined by single hyphens)", ErrInvalidRef, ref, name)
	}
	return nil
}

func isDirRef(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/")
}

// SourceSpec is a parsed source: where a publish goes (--to) or where bare
// names are looked up (--registry, --from).
type SourceSpec struct {
	// Kind is KindName for the embedded default registry, KindRemote for a
	// registry namespace, or KindLayout for a directory of layouts.
	Kind Kind
	// Location is "" for the embedded registry, "host[/namespace]" for a
	// remote source, and the directory for a layout source.
	Location string
}

// String formats s so that ParseSource reads it back.
func (s SourceSpec) String() string {
	if s.Kind == KindLayout {
		return LayoutPrefix + s.Location
	}
	return s.Location
}

// Host returns the registry host of a remote source, "" otherwise.
func (s SourceSpec) Host() string {
	if s.Kind != KindRemote {
		return ""
	}
	host, _, _ := strings.Cut(s.Location, "/")
	return host
}

// ParseSource reads a source: "" (the embedded registry),
// "oci-layout:DIR", or a registry host with an optional namespace
// ("ghcr.io/acme/skills", "localhost:5000").
//
// The grammar is package source's, shared with the resolver, the trust
// policy and the configuration: "embedded" is the embedded registry too.
func ParseSource(s string) (SourceSpec, error) {
	sp, err := source.Parse(s)
	if err != nil {
		return SourceSpec{}, fmt.Errorf("%w: %w", ErrInvalidRef, err)
	}
	switch sp.Kind {
	case source.KindRemote:
		return SourceSpec{Kind: KindRemote, Location: sp.Location}, nil
	case source.KindLayout:
		return SourceSpec{Kind: KindLayout, Location: sp.Location}, nil
	}
	return SourceSpec{}, nil
}

// Tag returns the OCI tag of a SemVer version: the version with "+"
// written as "_", since tags cannot hold "+".
func Tag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// VersionFromTag reads a tag as a version ("_" read as "+"), or nil when
// the tag is not strict SemVer (such tags are ignored by resolution).
func VersionFromTag(tag string) *semver.Version {
	v, err := semver.StrictNewVersion(strings.ReplaceAll(tag, "_", "+"))
	if err != nil {
		return nil
	}
	return v
}
