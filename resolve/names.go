package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/source"
)

// EmbeddedSource is the canonical source of the embedded default registry,
// spelled as package tiers spells it in canonical repository strings
// ("embedded/web-research").
const EmbeddedSource = source.Embedded

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

// parseName reads a skill name as skills.yaml and skill dependencies
// write it (source.ParseName, the one grammar), as ErrInvalidName.
func parseName(ref string) (source.Ref, error) {
	r, err := source.ParseName(ref)
	if err != nil {
		var re *source.RefError
		if errors.As(err, &re) {
			return r, fmt.Errorf("%w: %q: %s", ErrInvalidName, ref, re.Reason)
		}
		return r, fmt.Errorf("%w: %w", ErrInvalidName, err)
	}
	return r, nil
}

// Key returns the solver name of a skill written as a bare name ("fix",
// in Default) or a reference with its source ("ghcr.io/acme/skills/fix",
// "oci-layout:./bundle/fix", "embedded/fix"). A reference into Default
// comes back bare, so both spellings are one skill.
func (n Namespace) Key(ref string) (string, error) {
	r, err := parseName(ref)
	if err != nil {
		return "", err
	}
	spec, ok := r.Spec()
	if !ok {
		return r.Name, nil
	}
	return n.join(spec.Canonical(n.Dir), r.Name), nil
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
	r, err := parseName(dep)
	if err != nil {
		return "", err
	}
	if r.Kind == source.RefName {
		dsrc, _ := n.Split(dependent)
		return n.join(dsrc, r.Name), nil
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
