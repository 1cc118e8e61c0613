package source

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/skill"
	orasregistry "oras.land/oras-go/v2/registry"
)

// RefKind says what a reference names.
type RefKind int

const (
	// RefName is a bare skill name, looked up in the default source:
	// "web-research".
	RefName RefKind = iota
	// RefRemote is a repository in a registry namespace:
	// "ghcr.io/acme/skills/web-research".
	RefRemote
	// RefLayout is a repository in a directory of OCI image layouts:
	// "oci-layout:DIR/web-research".
	RefLayout
	// RefEmbedded is a skill of the embedded registry named as such:
	// "embedded/web-research".
	RefEmbedded
	// RefDir is a local skill directory: "./my-skill", "/abs/my-skill".
	RefDir
	// RefGit is a git reference: "github:OWNER/REPO[@REV]",
	// "git+https://HOST/OWNER/REPO", "https://github.com/OWNER/REPO"
	// (see [LooksGit]).
	RefGit
)

// String implements fmt.Stringer.
func (k RefKind) String() string {
	switch k {
	case RefName:
		return "name"
	case RefRemote:
		return "remote"
	case RefLayout:
		return "oci-layout"
	case RefEmbedded:
		return Embedded
	case RefDir:
		return "directory"
	case RefGit:
		return "git"
	}
	return fmt.Sprintf("RefKind(%d)", int(k))
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
// Errors are *SelectorError.
func ParseSelector(s string) (Selector, error) {
	if s == "" {
		return Selector{Kind: SelectLatest}, nil
	}
	if strings.Contains(s, ":") {
		d, err := digest.Parse(s)
		if err != nil {
			return Selector{}, &SelectorError{Selector: s, Digest: true, Reason: fmt.Sprintf("not a digest (sha256:<64 hex digits>): %v", err)}
		}
		return Selector{Kind: SelectDigest, Raw: s, Digest: d}, nil
	}
	if v, err := semver.StrictNewVersion(strings.ReplaceAll(s, "_", "+")); err == nil {
		return Selector{Kind: SelectVersion, Raw: s, Version: v}, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return Selector{}, &SelectorError{Selector: s, Reason: "neither a version (1.2.3), a range (^1, ~1.4, >=1.0 <2.0) nor a digest"}
	}
	return Selector{Kind: SelectRange, Raw: s, Range: c}, nil
}

// Ref is a parsed reference (resolve-install.md, References).
type Ref struct {
	// Kind says what the reference names.
	Kind RefKind
	// Source is "" for RefName, the registry and namespace for RefRemote
	// ("ghcr.io/acme/skills"), the directory of layouts for RefLayout,
	// Embedded for RefEmbedded, the directory itself for RefDir and the
	// reference as written for RefGit.
	Source string
	// Name is the skill name: the repository's last path element. It is ""
	// for RefDir and RefGit.
	Name string
	// Selector picks the version; always SelectLatest for RefDir and
	// RefGit (a git revision is the git reference's).
	Selector Selector
}

// String formats r so that ParseRef reads it back.
func (r Ref) String() string {
	var b strings.Builder
	switch r.Kind {
	case RefDir, RefGit:
		return r.Source
	case RefRemote, RefEmbedded:
		b.WriteString(r.Source + "/")
	case RefLayout:
		b.WriteString(LayoutPrefix + r.Source + "/")
	}
	b.WriteString(r.Name)
	if sel := r.Selector.String(); sel != "" {
		b.WriteString("@" + sel)
	}
	return b.String()
}

// Spec returns the source r names a skill in: ok is false for RefName
// (the default source, whichever it is), RefDir and RefGit.
func (r Ref) Spec() (s Spec, ok bool) {
	switch r.Kind {
	case RefRemote:
		return Spec{Kind: KindRemote, Location: r.Source}, true
	case RefLayout:
		return Spec{Kind: KindLayout, Location: r.Source}, true
	case RefEmbedded:
		return Spec{Kind: KindEmbedded}, true
	}
	return Spec{}, false
}

// maxRefLen bounds a reference; real ones are well under 300 bytes.
const maxRefLen = MaxLen

// ParseRef reads every form of reference:
//
//	web-research, web-research@^1, web-research@1.2.3, web-research@sha256:…
//	ghcr.io/acme/skills/web-research@~1.4, localhost:5000/skills/x
//	oci-layout:DIR/web-research@1.2.3
//	embedded/web-research@^1
//	./my-skill, ../x, /abs/my-skill, ., ..
//	github:OWNER/REPO[@REV], git+https://HOST/OWNER/REPO, https://github.com/OWNER/REPO
//
// A path with a "/" is a registry reference only when its first element is
// a host (it holds a "." or ":" or is "localhost"), as Docker reads it;
// "skills/x" is refused rather than guessed (write ./skills/x for a
// directory). A git reference is classified here ([LooksGit]) and kept as
// written: its URL, revision and folder are package gitsource's to read.
// ParseRef looks at the text only: it neither checks that a directory
// exists nor contacts anything. Errors are *RefError or *SelectorError.
func ParseRef(s string) (Ref, error) { return parseRef(s, true) }

// parseRef is ParseRef; dirs says whether the reader takes a directory,
// so that a refusal suggests one only where it would be read.
func parseRef(s string, dirs bool) (Ref, error) {
	if len(s) > maxRefLen {
		return Ref{}, &RefError{Ref: s[:64] + "…", Reason: fmt.Sprintf("%d bytes, more than %d", len(s), maxRefLen)}
	}
	switch {
	case s == "":
		return Ref{}, &RefError{Reason: "empty reference"}
	case LooksGit(s):
		return Ref{Kind: RefGit, Source: s}, nil
	case strings.HasPrefix(s, LayoutPrefix):
		return parseLayoutRef(s)
	case isDirRef(s):
		return Ref{Kind: RefDir, Source: s}, nil
	}
	path, sel, err := splitSelector(s)
	if err != nil {
		return Ref{}, err
	}
	if !strings.Contains(path, "/") {
		if err := checkName(path, s); err != nil {
			return Ref{}, err
		}
		return Ref{Kind: RefName, Name: path, Selector: sel}, nil
	}
	i := strings.LastIndexByte(path, '/')
	src, name := path[:i], path[i+1:]
	if src == Embedded {
		if err := checkName(name, s); err != nil {
			return Ref{}, err
		}
		return Ref{Kind: RefEmbedded, Source: Embedded, Name: name, Selector: sel}, nil
	}
	host, _, _ := strings.Cut(path, "/")
	if !looksLikeHostname(host) {
		reason := "a registry reference starts with a host (ghcr.io/acme/skills/NAME, localhost:5000/NAME)"
		if dirs {
			reason += fmt.Sprintf("; write ./%s for a local directory", path)
		}
		return Ref{}, &RefError{Ref: s, Reason: reason}
	}
	if err := checkName(name, s); err != nil {
		return Ref{}, err
	}
	if _, err := orasregistry.ParseReference(path); err != nil {
		return Ref{}, &RefError{Ref: s, Reason: err.Error()}
	}
	return Ref{Kind: RefRemote, Source: src, Name: name, Selector: sel}, nil
}

// ParseName reads a skill name as a manifest or a skill's dependencies
// write it: NAME in the default source, or NAME in a named one
// (host/namespace/NAME, oci-layout:DIR/NAME, embedded/NAME). It is
// ParseRef without a version, a directory or a git reference: a range is
// written as its own value.
func ParseName(s string) (Ref, error) {
	if strings.Contains(s, "@") {
		return Ref{}, &RefError{Ref: s, Reason: "a skill name carries no version; write the range as its own value"}
	}
	r, err := parseRef(s, false)
	if err != nil {
		return Ref{}, err
	}
	switch r.Kind {
	case RefDir:
		return Ref{}, &RefError{Ref: s, Reason: "a directory is not a skill name; name a published skill (NAME, ghcr.io/acme/skills/NAME)"}
	case RefGit:
		return Ref{}, &RefError{Ref: s, Reason: "a git reference is not a skill name here"}
	}
	return r, nil
}

// LooksGit reports whether s is written as a git reference (or a web URL
// taken as one): "git+…", "https://…", "http://…", or a forge shorthand
// ("github:", "gitlab:", "codeberg:", "bitbucket:", "sourcehut:").
// Package gitsource reads it; it may still refuse it.
func LooksGit(s string) bool {
	if strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		return true
	}
	p, _, ok := strings.Cut(s, ":")
	return ok && gitForges[p]
}

// IsGitName reports whether a skills.yaml name or a lock's git field is a
// git reference: "git+URL" or a "github:", "gitlab:" or "codeberg:"
// shorthand. A web URL (https://github.com/OWNER/REPO), which LooksGit
// takes on the command line, is not written in a manifest.
func IsGitName(s string) bool {
	if strings.HasPrefix(s, "git+") {
		return true
	}
	p, _, ok := strings.Cut(s, ":")
	return ok && (p == "github" || p == "gitlab" || p == "codeberg")
}

// gitForges are the shorthand prefixes of git references.
var gitForges = map[string]bool{"github": true, "gitlab": true, "codeberg": true, "bitbucket": true, "sourcehut": true}

func parseLayoutRef(s string) (Ref, error) {
	rest := strings.TrimPrefix(s, LayoutPrefix)
	path, sel, err := splitSelector(rest)
	if err != nil {
		return Ref{}, err
	}
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return Ref{}, &RefError{Ref: s, Reason: "write oci-layout:DIR/NAME (DIR holds one OCI layout per skill)"}
	}
	dir, name := path[:i], path[i+1:]
	if dir == "" {
		return Ref{}, &RefError{Ref: s, Reason: "write oci-layout:DIR/NAME (DIR holds one OCI layout per skill)"}
	}
	if err := checkName(name, s); err != nil {
		return Ref{}, err
	}
	return Ref{Kind: RefLayout, Source: dir, Name: name, Selector: sel}, nil
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
		return "", Selector{}, &RefError{Ref: s, Reason: "nothing after @ (write NAME@1.2.3, NAME@^1 or NAME@sha256:…)"}
	}
	sel, err := ParseSelector(raw)
	if err != nil {
		return "", Selector{}, err
	}
	return s[:at], sel, nil
}

func checkName(name, ref string) error {
	if name == "" {
		return &RefError{Ref: ref, Reason: "no skill name"}
	}
	if strings.Contains(name, ":") {
		return &RefError{Ref: ref, Reason: "write the version after @ (NAME@1.2.3), not after a colon"}
	}
	if !skill.ValidName(name) {
		return &RefError{Ref: ref, Reason: fmt.Sprintf("%q is not a skill name (lower-case letters and digits in words joined by single hyphens)", name)}
	}
	return nil
}

func isDirRef(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/")
}
