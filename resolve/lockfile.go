package resolve

import (
	"github.com/skillpm/skillpm/internal/atomicfile"

	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/internal/yamlstrict"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/source"
	"gopkg.in/yaml.v3"
)

// LockVersion is the skills.lock format this package reads and writes.
const LockVersion = 1

// lockHeader is the comment skills.lock starts with.
const lockHeader = "skills.lock: what `skillpm lock` resolved from skills.yaml. Do not edit by hand."

// Lockfile is skills.lock: one entry per skill a project installs, sorted
// by name. Its YAML form ([Lockfile.Marshal]) depends only on its content,
// so the same resolution always writes the same bytes.
type Lockfile struct {
	// File is where the lock was read from or is meant to be written, for
	// messages; it is not part of the file.
	File string `yaml:"-"`
	// Version is the format version, LockVersion.
	Version int `yaml:"version"`
	// Skills are the entries, sorted by name, one per name.
	Skills []LockedSkill `yaml:"skills"`
}

// LockedSkill is one entry of skills.lock.
type LockedSkill struct {
	// Name is the skill name; an install root holds one skill per name.
	Name string `yaml:"name"`
	// Version is the exact version chosen.
	Version string `yaml:"version"`
	// Source is the canonical repository ([Namespace.Repository]):
	// "ghcr.io/acme/skills/fix", "embedded/fix", "oci-layout:/abs/dir/fix".
	Source string `yaml:"source"`
	// Digest is the manifest digest: the version's identity.
	Digest string `yaml:"digest"`
	// Tree is the tree hash of the unpacked files the manifest states; ""
	// when it states none.
	Tree string `yaml:"tree,omitempty"`
	// Git is, for a skill built from a git repository, the reference at
	// the resolved commit: git+URL@COMMIT#FOLDER (credentials removed).
	// install --frozen fetches that commit and checks Tree.
	Git string `yaml:"git,omitempty"`
	// Tier is the effective trust tier install computed; "" until known.
	Tier skill.Tier `yaml:"tier,omitempty"`
	// Signers are the verified signer identities; empty until known.
	Signers []Signer `yaml:"signers,omitempty"`
	// Dependencies maps each direct dependency's name to the version
	// chosen for it.
	Dependencies map[string]string `yaml:"dependencies,omitempty"`
	// Requested is the range the project asked for, for the skills the
	// manifest lists; "" for skills present only as dependencies.
	Requested string `yaml:"requested,omitempty"`
	// Layer is the manifest's layer, and Referrers the signature and audit
	// bundles that verified for it: with them install --frozen reads
	// every byte by digest at once (the manifest, the layer, each
	// referrer manifest and bundle) instead of waiting for the manifest
	// to learn the layer and listing the referrers. They name, they do
	// not vouch: the manifest must state the same layer, and every
	// bundle is verified again. Locks written before they were recorded
	// have neither.
	Layer *LockedBlob `yaml:"layer,omitempty"`
	// Referrers: see Layer.
	Referrers []LockedReferrer `yaml:"referrers,omitempty"`
}

// LockedBlob is content a lock names by digest and size.
type LockedBlob struct {
	// Digest is the content's digest.
	Digest string `yaml:"digest"`
	// Size is its size in bytes.
	Size int64 `yaml:"size"`
}

// LockedReferrer is a referrer manifest of a locked version and the
// Sigstore bundle it carries.
type LockedReferrer struct {
	// Digest and Size are the referrer manifest's.
	Digest string `yaml:"digest"`
	Size   int64  `yaml:"size"`
	// Bundle is the bundle blob the referrer manifest lists.
	Bundle LockedBlob `yaml:"bundle"`
}

// Signer is a verified signer identity as a lock records it. It has the
// fields of sign.Identity, so install converts one with Signer(id); it is
// declared here so that resolution does not depend on the signing stack.
type Signer struct {
	// KeyFingerprint is "sha256:<hex>" of a signing key, for key signatures.
	KeyFingerprint string `json:"keyFingerprint,omitempty" yaml:"keyFingerprint,omitempty"`
	// Subject is a certificate's subject: an email address or a URI.
	Subject string `json:"subject,omitempty" yaml:"subject,omitempty"`
	// Issuer is the OIDC issuer recorded in the certificate.
	Issuer string `json:"issuer,omitempty" yaml:"issuer,omitempty"`
}

// String renders the identity as sign.Identity does: "key sha256:…" or
// "subject (issuer)".
func (s Signer) String() string {
	if s.KeyFingerprint != "" {
		return "key " + s.KeyFingerprint
	}
	return s.Subject + " (" + s.Issuer + ")"
}

// Get returns the entry named name, or nil.
func (l *Lockfile) Get(name string) *LockedSkill {
	if l == nil {
		return nil
	}
	i := sort.Search(len(l.Skills), func(i int) bool { return l.Skills[i].Name >= name })
	if i < len(l.Skills) && l.Skills[i].Name == name {
		return &l.Skills[i]
	}
	return nil
}

// normalize sorts entries and signers so that equal content marshals to
// equal bytes.
func (l *Lockfile) normalize() {
	l.Version = LockVersion
	sort.SliceStable(l.Skills, func(i, j int) bool { return l.Skills[i].Name < l.Skills[j].Name })
	for i := range l.Skills {
		s := &l.Skills[i]
		sort.SliceStable(s.Signers, func(a, b int) bool { return s.Signers[a].String() < s.Signers[b].String() })
		sort.SliceStable(s.Referrers, func(a, b int) bool { return s.Referrers[a].Digest < s.Referrers[b].Digest })
		if len(s.Referrers) == 0 {
			s.Referrers = nil
		}
		if len(s.Dependencies) == 0 {
			s.Dependencies = nil
		}
	}
}

func (l *Lockfile) path() string {
	if l.File == "" {
		return LockFile
	}
	return l.File
}

// Marshal returns the lock as YAML: a header comment, then version and the
// entries sorted by name, fields in a fixed order, maps sorted by key.
func (l *Lockfile) Marshal() ([]byte, error) {
	c := l.clone()
	c.normalize()
	var b bytes.Buffer
	b.WriteString("# " + lockHeader + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (l *Lockfile) clone() *Lockfile {
	c := &Lockfile{File: l.File, Version: l.Version, Skills: slices.Clone(l.Skills)}
	for i := range c.Skills {
		c.Skills[i].Signers = slices.Clone(c.Skills[i].Signers)
		c.Skills[i].Dependencies = maps.Clone(c.Skills[i].Dependencies)
		c.Skills[i].Referrers = slices.Clone(c.Skills[i].Referrers)
		if l := c.Skills[i].Layer; l != nil {
			cp := *l
			c.Skills[i].Layer = &cp
		}
	}
	return c
}

// WriteLockfile writes l to path atomically: a temporary file beside it,
// fsynced, renamed over path, and the directory fsynced, so a reader (or
// a crash) sees the old lock or the new one, never a mix.
func WriteLockfile(ctx context.Context, path string, l *Lockfile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o644)
}

// ReadLockfile reads and checks skills.lock. A missing file is an error
// wrapping fs.ErrNotExist.
func ReadLockfile(ctx context.Context, path string) (*Lockfile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := readProjectFile(path, MaxLockBytes, ErrInvalidLock)
	if err != nil {
		return nil, err
	}
	return ParseLockfile(path, data)
}

var lockEntryFields = []string{"name", "version", "source", "digest", "tree", "git", "tier", "signers", "dependencies", "requested", "layer", "referrers"}

// ParseLockfile parses and checks a lock: its version, every entry's
// fields (names, exact versions, digests, ranges), one entry per name.
// Problems are *[FileError]s wrapping ErrInvalidLock. Entries come back
// sorted by name whatever their order in the file.
func ParseLockfile(file string, data []byte) (*Lockfile, error) {
	p := &fileParser{file: file, sentinel: ErrInvalidLock}
	root, err := p.document(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, p.errAt(nil, "empty lockfile", "run skillpm lock to write it again")
	}
	l := &Lockfile{File: file}
	var skillsNode *yaml.Node
	err = p.fields(root, []string{"version", "skills"}, "a lockfile has version: and skills:", func(k, v *yaml.Node) error {
		switch k.Value {
		case "version":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&l.Version) != nil {
				return p.errAt(v, "version must be a number, found "+kindName(v), "")
			}
			if l.Version != LockVersion {
				return p.errAt(v, fmt.Sprintf("lock format version %d; this skillpm reads version %d", l.Version, LockVersion), "upgrade skillpm, or run skillpm lock to write it again")
			}
		case "skills":
			skillsNode = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if l.Version == 0 {
		return nil, p.errAt(root, "no version:", "run skillpm lock to write it again")
	}
	if skillsNode != nil && !isNull(skillsNode) {
		if skillsNode.Kind != yaml.SequenceNode {
			return nil, p.errAt(skillsNode, "skills must be a list, found "+kindName(skillsNode), "")
		}
		lines := map[string]int{}
		for _, e := range skillsNode.Content {
			s, err := p.lockEntry(yamlstrict.Deref(e))
			if err != nil {
				return nil, err
			}
			if first, ok := lines[s.Name]; ok {
				return nil, p.errAt(e, fmt.Sprintf("skill %s is locked twice (first at line %d)", s.Name, first), "an install root holds one skill per name; run skillpm lock")
			}
			lines[s.Name] = e.Line
			l.Skills = append(l.Skills, s)
		}
	}
	l.normalize()
	return l, nil
}

func (p *fileParser) lockEntry(e *yaml.Node) (LockedSkill, error) {
	if e.Kind != yaml.MappingNode {
		return LockedSkill{}, p.errAt(e, "a lock entry must be a mapping, found "+kindName(e), "")
	}
	if err := p.fields(e, lockEntryFields, "a lock entry has "+strings.Join(lockEntryFields, ", "), func(k, v *yaml.Node) error {
		return nil
	}); err != nil {
		return LockedSkill{}, err
	}
	var s LockedSkill
	if err := e.Decode(&s); err != nil {
		return LockedSkill{}, p.errAt(e, "bad lock entry: "+strings.TrimPrefix(err.Error(), "yaml: "), "")
	}
	at := func(field string) *yaml.Node {
		if n := p.lookup(e, field); n != nil {
			return n
		}
		return e
	}
	if !skill.ValidName(s.Name) {
		return s, p.errAt(at("name"), fmt.Sprintf("%q is not a skill name", s.Name), "")
	}
	if _, err := semver.StrictNewVersion(s.Version); err != nil {
		return s, p.errAt(at("version"), fmt.Sprintf("%s: version %q is not an exact version", s.Name, s.Version), "")
	}
	if s.Source == "" || ShortName(s.Source) != s.Name {
		return s, p.errAt(at("source"), fmt.Sprintf("%s: source %q is not a repository of %s", s.Name, s.Source, s.Name), "")
	}
	if _, err := digest.Parse(s.Digest); err != nil {
		return s, p.errAt(at("digest"), fmt.Sprintf("%s: digest %q is not a digest", s.Name, s.Digest), "")
	}
	if s.Tree != "" {
		if _, err := digest.Parse(s.Tree); err != nil {
			return s, p.errAt(at("tree"), fmt.Sprintf("%s: tree %q is not a digest", s.Name, s.Tree), "")
		}
	}
	if s.Git != "" && !source.IsGitName(s.Git) {
		return s, p.errAt(at("git"), fmt.Sprintf("%s: git %q is not a git reference", s.Name, s.Git), "")
	}
	for dep, v := range s.Dependencies {
		if _, err := semver.StrictNewVersion(v); err != nil || !skill.ValidName(dep) {
			return s, p.errAt(at("dependencies"), fmt.Sprintf("%s: dependency %s: %q is not a skill name and an exact version", s.Name, dep, v), "")
		}
	}
	if s.Requested != "" {
		if _, err := ParseRange(s.Requested, true); err != nil {
			return s, p.errAt(at("requested"), fmt.Sprintf("%s: requested range %q does not parse", s.Name, s.Requested), "")
		}
	}
	if s.Layer != nil && !validBlob(*s.Layer) {
		return s, p.errAt(at("layer"), fmt.Sprintf("%s: layer %q (%d bytes) is not a digest and a size", s.Name, s.Layer.Digest, s.Layer.Size), "")
	}
	for _, r := range s.Referrers {
		if !validBlob(LockedBlob{Digest: r.Digest, Size: r.Size}) || !validBlob(r.Bundle) {
			return s, p.errAt(at("referrers"), fmt.Sprintf("%s: referrer %q and its bundle %q are not digests and sizes", s.Name, r.Digest, r.Bundle.Digest), "")
		}
	}
	return s, nil
}

// validBlob reports whether b names content: a digest and a size.
func validBlob(b LockedBlob) bool {
	_, err := digest.Parse(b.Digest)
	return err == nil && b.Size >= 0
}

// Preferences returns the locked versions by solver name, for
// Options.Locked: the solver keeps each while it still satisfies every
// requirement.
func (l *Lockfile) Preferences(ns Namespace) map[string]*semver.Version {
	if l == nil {
		return nil
	}
	out := make(map[string]*semver.Version, len(l.Skills))
	for _, s := range l.Skills {
		if v, err := semver.StrictNewVersion(s.Version); err == nil {
			out[ns.KeyOf(s.Source)] = v
		}
	}
	return out
}

// Satisfies reports whether installing exactly this lock gives the
// project what its manifest asks for, with names read in ns: every
// required skill locked from the right repository at a version in its
// range, no skill locked as requested that the manifest no longer lists,
// and every entry's dependencies locked and every entry needed. An
// optional requirement may be absent (it was unavailable). The error is a
// *[StaleError] naming each difference.
func (l *Lockfile) Satisfies(m *Manifest, ns Namespace) error {
	return l.satisfies(m, ns, false)
}

// satisfies is Satisfies with pre-releases in every range when pre is
// true (a lock made with --pre).
func (l *Lockfile) satisfies(m *Manifest, ns Namespace, pre bool) error {
	var diffs []string
	byName := map[string]*LockedSkill{}
	for i := range l.Skills {
		byName[l.Skills[i].Name] = &l.Skills[i]
	}
	listed := map[string]bool{}
	for _, r := range m.Skills {
		key, err := ns.Key(r.Name)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", m.File, r.Line, err)
		}
		name, repo := ShortName(key), ns.Repository(key)
		listed[name] = true
		e := byName[name]
		switch {
		case e == nil && r.Optional:
			continue
		case e == nil:
			diffs = append(diffs, fmt.Sprintf("%s %s: not in the lock", name, r.Range))
			continue
		case e.Source != repo:
			diffs = append(diffs, fmt.Sprintf("%s: locked from %s, the manifest asks for %s", name, e.Source, repo))
			continue
		}
		set, err := ParseRange(r.Range, pre)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", m.File, r.Line, err)
		}
		if v, err := semver.StrictNewVersion(e.Version); err != nil || !set.Contains(v) {
			diffs = append(diffs, fmt.Sprintf("%s: locked at %s, which is not in %s", name, e.Version, r.Range))
		}
	}
	// Every entry must be needed: reachable from what the manifest lists.
	reach := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if reach[n] || byName[n] == nil {
			return
		}
		reach[n] = true
		for dep := range byName[n].Dependencies {
			walk(dep)
		}
	}
	for n := range listed {
		walk(n)
	}
	for _, e := range l.Skills {
		switch {
		case e.Requested != "" && !listed[e.Name]:
			diffs = append(diffs, fmt.Sprintf("%s: locked as requested (%s), but the manifest no longer lists it", e.Name, e.Requested))
		case !reach[e.Name]:
			diffs = append(diffs, fmt.Sprintf("%s %s: in the lock, but nothing needs it", e.Name, e.Version))
		}
		for _, dep := range slices.Sorted(maps.Keys(e.Dependencies)) {
			d := byName[dep]
			if d == nil {
				diffs = append(diffs, fmt.Sprintf("%s: needs %s %s, which is not in the lock", e.Name, dep, e.Dependencies[dep]))
			} else if d.Version != e.Dependencies[dep] {
				diffs = append(diffs, fmt.Sprintf("%s: needs %s %s, the lock has %s", e.Name, dep, e.Dependencies[dep], d.Version))
			}
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return &StaleError{Lock: l.path(), Differences: diffs}
}

// Diff lists how next differs from l in what a lock records about each
// skill (version, source, digest, tree, dependencies, requested range),
// sorted by skill name; nil when they agree. Tier and signers are left
// out: install fills them in.
func (l *Lockfile) Diff(next *Lockfile) []string {
	var diffs []string
	old := map[string]LockedSkill{}
	if l != nil {
		for _, s := range l.Skills {
			old[s.Name] = s
		}
	}
	seen := map[string]bool{}
	for _, n := range next.Skills {
		seen[n.Name] = true
		o, ok := old[n.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: not in the lock; resolving adds %s", n.Name, n.Version))
			continue
		}
		if o.Version != n.Version {
			diffs = append(diffs, fmt.Sprintf("%s: locked at %s; resolving gives %s", n.Name, o.Version, n.Version))
			continue
		}
		if o.Source != n.Source {
			diffs = append(diffs, fmt.Sprintf("%s: locked from %s; resolving gives %s", n.Name, o.Source, n.Source))
			continue
		}
		if o.Digest != n.Digest {
			diffs = append(diffs, fmt.Sprintf("%s %s: locked as %s; the registry now has %s (republished)", n.Name, n.Version, o.Digest, n.Digest))
		}
		if o.Git != n.Git {
			diffs = append(diffs, fmt.Sprintf("%s %s: locked from %s; resolving gives %s", n.Name, n.Version, orNone(o.Git), orNone(n.Git)))
		}
		if o.Tree != n.Tree {
			diffs = append(diffs, fmt.Sprintf("%s %s: tree %s in the lock; the manifest now says %s", n.Name, n.Version, orNone(o.Tree), orNone(n.Tree)))
		}
		if !maps.Equal(o.Dependencies, n.Dependencies) {
			diffs = append(diffs, fmt.Sprintf("%s %s: dependencies %s in the lock; resolving gives %s", n.Name, n.Version, depsText(o.Dependencies), depsText(n.Dependencies)))
		}
		if o.Requested != n.Requested {
			diffs = append(diffs, fmt.Sprintf("%s: requested %s in the lock; the manifest asks for %s", n.Name, orNone(o.Requested), orNone(n.Requested)))
		}
	}
	if l != nil {
		for _, o := range l.Skills {
			if !seen[o.Name] {
				diffs = append(diffs, fmt.Sprintf("%s %s: in the lock; resolving drops it", o.Name, o.Version))
			}
		}
	}
	sort.Strings(diffs)
	return diffs
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func depsText(m map[string]string) string {
	if len(m) == 0 {
		return "(none)"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+" "+m[k])
	}
	return strings.Join(parts, ", ")
}

// Without returns a copy of the lock without the entries named, so that
// resolving against it lets those skills move to the newest versions
// their ranges allow (lock --upgrade NAME, update NAME) while the others
// keep theirs. No names drops every entry; a nil lock stays nil.
func (l *Lockfile) Without(names ...string) *Lockfile {
	if l == nil {
		return nil
	}
	c := l.clone()
	if len(names) == 0 {
		c.Skills = nil
		return c
	}
	c.Skills = slices.DeleteFunc(c.Skills, func(s LockedSkill) bool { return slices.Contains(names, s.Name) })
	return c
}
