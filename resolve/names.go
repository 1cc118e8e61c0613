package resolve

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/source"
)

// EmbeddedSource is the canonical source of the embedded default registry,
// spelled as package tiers spells it in canonical repository strings
// ("embedded/web-research").
const EmbeddedSource = source.Embedded

// layoutPrefix starts a source stored as OCI image layouts on disk.
const layoutPrefix = source.LayoutPrefix

// Namespace turns the skill names people write into the names the solver
// works on, so that one name means one repository everywhere in a solve.
//
// A solver name (a "key") is the skill's canonical repository string (see
// [Namespace.Repository]) with the default source left off: "fix" is the
// skill fix in Default, "ghcr.io/acme/skills/fix" and
// "oci-layout:/srv/bundle/fix" are fix in those sources, and
// "embedded/fix" is fix in the embedded registry when it is not the
// default. Keys are canonical: two keys are equal exactly when they name
// the same repository.
//
// A dependency written without a registry lives in the namespace of the
// skill that needs it ([Namespace.Qualify]); it never falls through to the
// default source or any other registry, so a name published elsewhere
// cannot stand in for it (no dependency confusion).
type Namespace struct {
	// Default is the canonical source of bare names: EmbeddedSource, a
	// registry namespace ("ghcr.io/acme/skills"), or "oci-layout:" and an
	// absolute slash path. [CanonicalSource] makes one; "" means
	// EmbeddedSource.
	Default string
	// Dir is the directory relative "oci-layout:" paths in names are read
	// against: the project's (the manifest's directory). "" means the
	// working directory.
	Dir string
}

func (n Namespace) def() string {
	if n.Default == "" {
		return EmbeddedSource
	}
	return n.Default
}

// CanonicalSource returns the canonical form of a source as written in
// skills.yaml or --from: "" is the embedded registry (EmbeddedSource); an
// "oci-layout:DIR" source has DIR made absolute against dir (the working
// directory when dir is "") and cleaned to a slash path; a registry
// namespace loses its trailing slashes. These are the sources of package
// tiers' canonical repository strings; the grammar is package source's.
func CanonicalSource(spec, dir string) (string, error) {
	s, err := source.Canonical(spec, dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidName, err)
	}
	return s, nil
}

// splitRef splits a reference without a version into its source and skill
// name: ("", "fix") for a bare name. It checks the shape only; whether the
// source exists is the registry's business.
func splitRef(ref string) (src, name string, err error) {
	bad := func(hint string) (string, string, error) {
		return "", "", fmt.Errorf("%w: %q: %s", ErrInvalidName, ref, hint)
	}
	if strings.Contains(ref, "@") {
		return bad("a skill name carries no version; write the range as its own value")
	}
	i := strings.LastIndexByte(ref, '/')
	if i < 0 {
		if strings.HasPrefix(ref, layoutPrefix) {
			return bad("write oci-layout:DIR/NAME")
		}
		if !skill.ValidName(ref) {
			return bad("not a skill name (lower-case letters and digits in words joined by single hyphens)")
		}
		return "", ref, nil
	}
	src, name = ref[:i], ref[i+1:]
	if !skill.ValidName(name) {
		return bad(fmt.Sprintf("%q is not a skill name (lower-case letters and digits in words joined by single hyphens)", name))
	}
	if strings.HasPrefix(src, layoutPrefix) {
		if src == layoutPrefix {
			return bad("write oci-layout:DIR/NAME")
		}
		return src, name, nil
	}
	if src == EmbeddedSource {
		return src, name, nil
	}
	host, _, _ := strings.Cut(src, "/")
	if !source.LooksLikeHost(host) {
		return bad("a reference with a registry starts with a host (ghcr.io/acme/skills/NAME, localhost:5000/NAME)")
	}
	for _, seg := range strings.Split(src, "/") {
		if seg == "" || strings.ContainsAny(seg, " \t") {
			return bad("empty or blank path element")
		}
	}
	return src, name, nil
}

// Key returns the solver name of a skill written as a bare name ("fix",
// in Default) or a reference with its source ("ghcr.io/acme/skills/fix",
// "oci-layout:./bundle/fix", "embedded/fix"). A reference into Default
// comes back bare, so both spellings are one skill.
func (n Namespace) Key(ref string) (string, error) {
	src, name, err := splitRef(ref)
	if err != nil {
		return "", err
	}
	if src == "" {
		return name, nil
	}
	src, err = CanonicalSource(src, n.Dir)
	if err != nil {
		return "", fmt.Errorf("%w: %q: a reference with a registry starts with a host", ErrInvalidName, ref)
	}
	return n.join(src, name), nil
}

func (n Namespace) join(src, name string) string {
	if src == n.def() {
		return name
	}
	return src + "/" + name
}

// Qualify returns the solver name of dep, a dependency as the skill
// dependent (a solver name) declares it. A bare dep lives in dependent's
// source; a dep with a registry or layout in it names that source. So
// "code" needed by "ghcr.io/acme/skills/fix" is "ghcr.io/acme/skills/code"
// whatever Default holds.
func (n Namespace) Qualify(dependent, dep string) (string, error) {
	src, name, err := splitRef(dep)
	if err != nil {
		return "", err
	}
	if src == "" {
		dsrc, _ := n.Split(dependent)
		return n.join(dsrc, name), nil
	}
	return n.Key(dep)
}

// Split returns the canonical source and the skill name of a solver name.
func (n Namespace) Split(key string) (source, name string) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return n.def(), key
	}
	return key[:i], key[i+1:]
}

// Repository returns the canonical repository string of a solver name,
// as package tiers makes it: "<source>/<name>", with the embedded
// registry as "embedded/<name>". It is what skills.lock records as an
// entry's source.
func (n Namespace) Repository(key string) string {
	src, name := n.Split(key)
	return src + "/" + name
}

// KeyOf returns the solver name of a canonical repository string, the
// inverse of [Namespace.Repository].
func (n Namespace) KeyOf(repository string) string {
	src, name := n.Split(repository)
	return n.join(src, name)
}

// ShortName returns the skill name of a solver name: its last element.
func ShortName(key string) string {
	return key[strings.LastIndexByte(key, '/')+1:]
}
