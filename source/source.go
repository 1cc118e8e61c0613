// Package source is the one grammar of skill references and sources, as
// go-containerregistry's pkg/name is of image references: every reader of
// a reference (the command line's arguments, skills.yaml names and
// dependencies, the resolver, the registry client, install, the trust
// policy's scopes) parses it here, so a form one of them accepts the
// others read the same way.
//
// [ParseRef] reads every form into a [Ref]: a bare name (NAME, NAME@RANGE,
// NAME@VERSION, NAME@DIGEST), a registry path (host/namespace/NAME), a
// layout (oci-layout:DIR/NAME), the embedded registry (embedded/NAME), a
// local directory (./DIR, /DIR) and a git reference (github:OWNER/REPO,
// git+https://…, https://github.com/…). [ParseName] is the subset
// skills.yaml and dependencies write. [Parse] reads a source, where bare
// names are looked up: the embedded default registry ("" or "embedded"),
// a directory of OCI image layouts ("oci-layout:DIR"), or a registry host
// with an optional namespace ("ghcr.io/acme/skills", "localhost:5000").
// Errors are typed (*RefError, *SelectorError, *Error) and say what to
// write instead.
//
// The grammar lives in this package, not in registry or resolve, because
// it sits below both (it imports nothing of the project but pkg/skill and
// errdef): the configuration, the resolver and the trust policy read
// references without taking in the registry client. A git reference is
// classified here and read in detail (URL, revision, folder) by package
// gitsource, which fetches it. internal/depcheck fails on a reference
// parsed by hand elsewhere.
package source

import (
	"fmt"
	"path/filepath"
	"strings"

	orasregistry "oras.land/oras-go/v2/registry"
)

// Embedded is the canonical name of the embedded default registry.
const Embedded = "embedded"

// LayoutPrefix starts a source that is a directory of OCI image layouts.
const LayoutPrefix = "oci-layout:"

// MaxLen bounds the length of a source, as OCI bounds references.
const MaxLen = 4096

// Kind says what a source is.
type Kind int

const (
	// KindEmbedded is the embedded default registry.
	KindEmbedded Kind = iota
	// KindRemote is a registry namespace: host[/namespace].
	KindRemote
	// KindLayout is a directory holding one OCI image layout per skill.
	KindLayout
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindRemote:
		return "registry"
	case KindLayout:
		return "layout directory"
	}
	return Embedded
}

// Spec is a parsed source.
type Spec struct {
	// Kind is what the source is.
	Kind Kind
	// Location is "" for the embedded registry, "host[/namespace]" (no
	// trailing slash) for a registry, and the directory as written for a
	// layout directory.
	Location string
}

// Parse reads a source. It checks the grammar only: whether the registry
// answers or the directory exists is for whoever opens it.
func Parse(s string) (Spec, error) {
	switch {
	case s == "" || s == Embedded:
		return Spec{Kind: KindEmbedded}, nil
	case len(s) > MaxLen:
		return Spec{}, &Error{Source: s[:64] + "…", Reason: fmt.Sprintf("%d bytes, more than %d", len(s), MaxLen)}
	case strings.HasPrefix(s, LayoutPrefix):
		dir := strings.TrimPrefix(s, LayoutPrefix)
		if dir == "" {
			return Spec{}, &Error{Source: s, Reason: "write oci-layout:DIR"}
		}
		return Spec{Kind: KindLayout, Location: dir}, nil
	}
	loc := strings.TrimRight(s, "/")
	host, _, _ := strings.Cut(loc, "/")
	if !looksLikeHostname(host) || strings.ContainsAny(loc, " \t@") || strings.Contains(loc, "//") {
		return Spec{}, &Error{Source: s, Reason: "a registry source starts with a host (ghcr.io/acme/skills, localhost:5000); write oci-layout:DIR for a directory"}
	}
	// Validate host and namespace as OCI does, with a placeholder
	// repository name.
	if _, err := orasregistry.ParseReference(loc + "/x"); err != nil {
		return Spec{}, &Error{Source: s, Reason: err.Error()}
	}
	return Spec{Kind: KindRemote, Location: loc}, nil
}

// looksLikeHostname is Docker's rule for the first element of a reference:
// a registry host ("localhost", or a name with a dot or a port) rather
// than a path element; sources and references both apply it.
func looksLikeHostname(s string) bool {
	return s == "localhost" || strings.ContainsAny(s, ".:")
}

// String formats s so that Parse reads it back: "" for the embedded
// registry.
func (s Spec) String() string {
	switch s.Kind {
	case KindLayout:
		return LayoutPrefix + s.Location
	case KindRemote:
		return s.Location
	}
	return ""
}

// Registry returns the registry ("host[:port]") of a remote source, "" otherwise.
func (s Spec) Registry() string {
	if s.Kind != KindRemote {
		return ""
	}
	host, _, _ := strings.Cut(s.Location, "/")
	return host
}

// Canonical returns the name that identifies s in lock files and trust
// policy scopes: "embedded", "host/namespace", or "oci-layout:" and the
// directory made absolute against dir (the working directory when dir is
// "") in forward slashes.
func (s Spec) Canonical(dir string) string {
	switch s.Kind {
	case KindLayout:
		return LayoutPrefix + absSlash(s.Location, dir)
	case KindRemote:
		return s.Location
	}
	return Embedded
}

// Canonical parses spec and returns its canonical name (Spec.Canonical).
func Canonical(spec, dir string) (string, error) {
	s, err := Parse(spec)
	if err != nil {
		return "", err
	}
	return s.Canonical(dir), nil
}

func absSlash(p, dir string) string {
	if !filepath.IsAbs(p) {
		if dir == "" {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		} else {
			p = filepath.Join(dir, p)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// Repository returns the canonical repository of the skill name in s, as
// trust policy scopes name it: "embedded/NAME", "oci-layout:DIR/NAME" or
// "host/namespace/NAME". A layout directory is cleaned, not made absolute:
// the caller passes the directory it opened.
func (s Spec) Repository(name string) string {
	switch s.Kind {
	case KindLayout:
		return LayoutPrefix + filepath.ToSlash(filepath.Clean(s.Location)) + "/" + name
	case KindRemote:
		return s.Location + "/" + name
	}
	return Embedded + "/" + name
}

// Repository parses src and returns the repository of name in it
// (Spec.Repository).
func Repository(src, name string) (string, error) {
	s, err := Parse(src)
	if err != nil {
		return "", err
	}
	return s.Repository(name), nil
}
