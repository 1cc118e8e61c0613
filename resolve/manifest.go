package resolve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/yamlstrict"
	"github.com/skillpm/skillpm/source"
	"gopkg.in/yaml.v3"
)

// Default file names of a project.
const (
	// ManifestFile is the project manifest: what the project wants.
	ManifestFile = "skills.yaml"
	// LockFile is the lockfile: what it got.
	LockFile = "skills.lock"
	// AgentManifestFile is a GAIA agent's manifest, whose skills: block
	// is read as a project manifest.
	AgentManifestFile = "gaia-agent.yaml"
)

// AnyRange is the range of a requirement written without one: any
// release, the newest preferred.
const AnyRange = "*"

// Manifest is what a project wants: skills.yaml, or the skills: block of
// a GAIA agent's gaia-agent.yaml (resolve-install.md, "Project manifest
// and lockfile").
type Manifest struct {
	// File is the path the manifest was read from, for messages.
	File string
	// Dir is the directory relative oci-layout: paths are read against:
	// the manifest's own; "" means the working directory.
	Dir string
	// Registry is the default source of bare names as written (a registry
	// namespace or oci-layout:DIR); "" means none was written.
	Registry string
	// Host is where to install, as written; "" means none was written.
	Host string
	// Hosts are the agent hosts to install into (hosts:), as written; a
	// host: line is read as a list of one.
	Hosts []string
	// Scope is "user" or "project" as written (scope:); "" means none
	// was written, which a skills.yaml reads as project.
	Scope string
	// Link is link: as written (install with one copy and symlinks, as
	// install --link); nil when none was written.
	Link *bool
	// Policy is policy: as written, the project's trust policy file
	// (relative to the manifest's directory); "" when none was written.
	Policy string
	// Skills are the requirements, sorted by name.
	Skills []Requirement
}

// Requirement is one skill a project asks for.
type Requirement struct {
	// Name is the skill as written: a bare name (in the default source) or
	// a reference with its source ("ghcr.io/acme/skills/fix").
	Name string
	// Range is the Masterminds range as written; AnyRange when none was.
	Range string
	// Optional requirements (gaia-agent.yaml's required: false) are
	// skipped, with a warning, when nothing can satisfy them.
	Optional bool
	// Line and Column locate the requirement in File.
	Line, Column int
}

// CheckSkills checks that the project (m, with its lock prev, nil for
// none) has every skill of names: a requirement of m, by its full or
// short name, or a locked skill. The first it lacks is a
// *NotInProjectError listing the requirements' short names and the
// locked skills.
func (m *Manifest) CheckSkills(prev *Lockfile, names []string) error {
	var have []string
	for _, r := range m.Skills {
		have = append(have, ShortName(r.Name))
	}
	if prev != nil {
		for _, s := range prev.Skills {
			have = append(have, s.Name)
		}
	}
	slices.Sort(have)
	have = slices.Compact(have)
	for _, n := range names {
		if !slices.Contains(have, n) && !slices.ContainsFunc(m.Skills, func(r Requirement) bool { return r.Name == n }) {
			return &NotInProjectError{Name: n, Manifest: m.File, Have: have}
		}
	}
	return nil
}

// RequirementsNamed returns the names, as written, of the requirements
// names name (each by its full or short name), in the order of names.
// The first name no requirement has is a *NotInProjectError listing the
// requirements.
func (m *Manifest) RequirementsNamed(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		i := slices.IndexFunc(m.Skills, func(q Requirement) bool { return q.Name == n || ShortName(q.Name) == n })
		if i < 0 {
			nip := &NotInProjectError{Name: n, Manifest: m.File}
			for _, q := range m.Skills {
				nip.Have = append(nip.Have, q.Name)
			}
			return nil, nip
		}
		out = append(out, m.Skills[i].Name)
	}
	return out, nil
}

// Range returns the range m asks for the skill written name, "" when m
// does not name it.
func (m *Manifest) Range(name string) string {
	for _, r := range m.Skills {
		if r.Name == name {
			return r.Range
		}
	}
	return ""
}

// RangeOrAny returns rng, or AnyRange when rng is "": a requirement
// written without a range allows every release.
func RangeOrAny(rng string) string {
	if rng == "" {
		return AnyRange
	}
	return rng
}

// Namespace returns the namespace this manifest's names are read in: the
// default source is from when it is not "" (--from, read against the
// working directory), else the manifest's registry (read against its
// directory), else the embedded registry.
func (m *Manifest) Namespace(from string) (Namespace, error) {
	if from != "" {
		d, err := CanonicalSource(from, "")
		if err != nil {
			return Namespace{}, fmt.Errorf("default source %q: %w", from, err)
		}
		return Namespace{Default: d, Dir: m.Dir}, nil
	}
	d, err := CanonicalSource(m.Registry, m.Dir)
	if err != nil {
		return Namespace{}, fmt.Errorf("%s: registry: %w", m.File, err)
	}
	return Namespace{Default: d, Dir: m.Dir}, nil
}

// MaxManifestBytes bounds a project manifest: a few hundred skills take
// some kilobytes.
const MaxManifestBytes = 1 << 20

// MaxLockBytes bounds a lockfile: an entry, with its signers, layer and
// referrers, takes about a kilobyte.
const MaxLockBytes = 16 << 20

// readProjectFile reads a project's manifest or lock, which come with
// the repository: it must be a regular file (a FIFO would block, a link
// to /dev/zero never end) of at most max bytes; either refusal wraps
// sentinel, and a missing file is an error wrapping fs.ErrNotExist.
func readProjectFile(path string, max int64, sentinel error) ([]byte, error) {
	data, err := boundedfile.ReadRegular(path, max)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("%w: %w: a project file is written by skillpm or by hand and is far smaller; check that this is the right file", sentinel, err)
	}
	if _, ok := errors.AsType[*boundedfile.NotRegularError](err); ok {
		return nil, fmt.Errorf("%w: %w: a project file must be a regular file in the project; replace it with one", sentinel, err)
	}
	return data, err
}

// ReadManifest reads a project manifest: a gaia-agent.yaml (by its file
// name, .yml too) with [ParseAgentManifest], anything else with
// [ParseManifest]. Its Dir is the file's directory. A file that does not
// exist is ErrNoManifest (and fs.ErrNotExist).
func ReadManifest(ctx context.Context, path string) (*Manifest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := readProjectFile(path, MaxManifestBytes, ErrInvalidManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: %w", ErrNoManifest, path, err)
	}
	if err != nil {
		return nil, err
	}
	parse := ParseManifest
	if b := filepath.Base(path); b == AgentManifestFile || b == "gaia-agent.yml" {
		parse = ParseAgentManifest
	}
	m, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		m.Dir = filepath.Dir(abs)
	}
	return m, nil
}

// ParseManifest parses skills.yaml:
//
//	registry: ghcr.io/acme/skills   # default source of bare names (optional)
//	scope: project                  # project (default) or user roots (optional)
//	hosts: [claude]                 # where to install (optional; host: NAME too)
//	skills:
//	  fix: ^1
//	  ghcr.io/other/skills/lint: ~1.4
//	  web-research:                 # no range: the newest release
//
// Every problem is a *[FileError] wrapping ErrInvalidManifest, at the line
// and column of the offending text. file names the manifest in messages.
func ParseManifest(file string, data []byte) (*Manifest, error) {
	p := &fileParser{file: file, sentinel: ErrInvalidManifest}
	root, err := p.document(data)
	if err != nil || root == nil {
		return &Manifest{File: file}, err
	}
	m := &Manifest{File: file}
	err = p.fields(root, []string{"registry", "host", "hosts", "scope", "link", "policy", "skills"}, "skills.yaml has registry:, scope:, hosts:, link:, policy: and skills:", func(k, v *yaml.Node) error {
		switch k.Value {
		case "policy":
			s, err := p.str(v, "policy")
			if err != nil {
				return err
			}
			if strings.TrimSpace(s) == "" {
				return p.errAt(v, "policy is empty", "name the project's trust policy file, e.g. policy: policy.yaml, or remove the line")
			}
			m.Policy = s
		case "registry":
			s, err := p.str(v, "registry")
			if err != nil {
				return err
			}
			if _, err := CanonicalSource(s, ""); err != nil {
				return p.errAt(v, fmt.Sprintf("registry %q is not a source", s), "write a registry namespace such as ghcr.io/acme/skills, or oci-layout:DIR")
			}
			m.Registry = s
		case "host":
			s, err := p.str(v, "host")
			if err != nil {
				return err
			}
			m.Host = s
		case "hosts":
			if isNull(v) {
				return nil
			}
			if v.Kind != yaml.SequenceNode {
				return p.errAt(v, "hosts must be a list of host names, found "+kindName(v), "write hosts: [claude] or one - NAME per line")
			}
			for _, e := range v.Content {
				s, err := p.str(yamlstrict.Deref(e), "a host")
				if err != nil {
					return err
				}
				m.Hosts = append(m.Hosts, s)
			}
		case "link":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				return p.errAt(v, "link must be true or false", "write link: true (one copy, symlinked into each host's root) or link: false")
			}
			m.Link = &b
		case "scope":
			s, err := p.str(v, "scope")
			if err != nil {
				return err
			}
			if s != "user" && s != "project" {
				return p.errAt(v, fmt.Sprintf("scope %q is not user or project", s), "write scope: project (roots under the project directory) or scope: user (the home directory's)")
			}
			m.Scope = s
		case "skills":
			reqs, err := p.rangeMap(v)
			if err != nil {
				return err
			}
			m.Skills = reqs
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, p.sortRequirements(m.Skills)
}

// ParseAgentManifest reads the skills: block of a GAIA agent manifest
// (gaia-agent.yaml) as a project manifest. Each entry is a skill name or
// a mapping:
//
//	skills:
//	  - web-research                  # any release, required
//	  - name: code
//	    version: ^1.2                 # a Masterminds range
//	    required: false               # skipped, with a warning, when unavailable
//
// A mapping of name to range, as in skills.yaml, is read too. The rest of
// the file is GAIA's and is not looked at.
func ParseAgentManifest(file string, data []byte) (*Manifest, error) {
	p := &fileParser{file: file, sentinel: ErrInvalidManifest}
	root, err := p.document(data)
	if err != nil || root == nil {
		return &Manifest{File: file}, err
	}
	m := &Manifest{File: file}
	v := p.lookup(root, "skills")
	switch {
	case v == nil || isNull(v):
	case v.Kind == yaml.MappingNode:
		if m.Skills, err = p.rangeMap(v); err != nil {
			return nil, err
		}
	case v.Kind == yaml.SequenceNode:
		for _, e := range v.Content {
			r, err := p.agentEntry(e)
			if err != nil {
				return nil, err
			}
			m.Skills = append(m.Skills, r)
		}
	default:
		return nil, p.errAt(v, "skills must be a list, found "+kindName(v), "write each skill as - NAME or - {name: NAME, version: RANGE, required: false}")
	}
	return m, p.sortRequirements(m.Skills)
}

func (p *fileParser) agentEntry(e *yaml.Node) (Requirement, error) {
	e = yamlstrict.Deref(e)
	const hint = "write - NAME or - {name: NAME, version: RANGE, required: false}"
	switch e.Kind {
	case yaml.ScalarNode:
		if isNull(e) {
			return Requirement{}, p.errAt(e, "empty skill entry", hint)
		}
		if err := p.checkName(e); err != nil {
			return Requirement{}, err
		}
		return Requirement{Name: e.Value, Range: AnyRange, Line: e.Line, Column: e.Column}, nil
	case yaml.MappingNode:
	default:
		return Requirement{}, p.errAt(e, "a skill entry must be a name or a mapping, found "+kindName(e), hint)
	}
	r := Requirement{Range: AnyRange, Line: e.Line, Column: e.Column}
	var name *yaml.Node
	err := p.fields(e, []string{"name", "version", "required"}, "a skill entry has name:, version: and required:", func(k, v *yaml.Node) error {
		switch k.Value {
		case "name":
			if _, err := p.str(v, "name"); err != nil {
				return err
			}
			name = v
		case "version":
			rng, err := p.rangeOf(v, "")
			if err != nil {
				return err
			}
			r.Range = rng
		case "required":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
				return p.errAt(v, "required must be true or false, found "+kindName(v), "")
			}
			r.Optional = !b
		}
		return nil
	})
	if err != nil {
		return Requirement{}, err
	}
	if name == nil {
		return Requirement{}, p.errAt(e, "a skill entry needs a name", hint)
	}
	if err := p.checkName(name); err != nil {
		return Requirement{}, err
	}
	r.Name = name.Value
	return r, nil
}

// fileParser reads a YAML project file into positioned errors.
type fileParser struct {
	file     string
	sentinel error
}

func (p *fileParser) errAt(n *yaml.Node, msg, hint string) error {
	e := &FileError{File: p.file, Message: msg, Hint: hint, Err: p.sentinel}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// document parses data and returns its top-level mapping, nil for an
// empty file.
func (p *fileParser) document(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlstrict.ErrorLine(err)
		hint := ""
		if strings.Contains(msg, "did not find expected") || strings.Contains(msg, "alias") || strings.Contains(msg, "block") {
			hint = `quote ranges that start with *, > or |: "*", ">=1.0, <2.0"`
		}
		return nil, &FileError{File: p.file, Line: line, Message: "not YAML: " + msg, Hint: hint, Err: p.sentinel}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := yamlstrict.Deref(doc.Content[0])
	if isNull(root) {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errAt(root, "the file must be a mapping, found "+kindName(root), "")
	}
	return root, nil
}

// fields calls fn for each key of mapping n, refusing unknown and
// repeated keys.
func (p *fileParser) fields(n *yaml.Node, known []string, hint string, fn func(k, v *yaml.Node) error) error {
	return yamlstrict.Mapping{Known: known, FollowAliases: true}.Pairs(n, fn, func(pr yamlstrict.Problem) error {
		k := pr.Node
		switch pr.Kind {
		case yamlstrict.Duplicate:
			return p.errAt(k, fmt.Sprintf("%s: is written twice (first at line %d)", k.Value, pr.First.Line), "keep one")
		case yamlstrict.MergeKey:
			return p.errAt(k, "YAML merge keys (<<) are not allowed", "write the merged fields out in full")
		case yamlstrict.KeyNotScalar:
			return p.errAt(k, "a key is "+kindName(yamlstrict.Deref(k))+"; keys are plain words", hint)
		case yamlstrict.Anchor:
			return p.errAt(k, "YAML anchors are not allowed on keys", "write the key out in full")
		}
		return p.errAt(k, fmt.Sprintf("unknown field %q", k.Value), hint)
	})
}

func (p *fileParser) lookup(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return yamlstrict.Deref(n.Content[i+1])
		}
	}
	return nil
}

func (p *fileParser) str(v *yaml.Node, field string) (string, error) {
	if v.Kind != yaml.ScalarNode || isNull(v) || v.Value == "" {
		return "", p.errAt(v, fmt.Sprintf("%s must be a non-empty string, found %s", field, kindName(v)), "")
	}
	return v.Value, nil
}

// rangeMap reads a mapping of skill name to range.
func (p *fileParser) rangeMap(v *yaml.Node) ([]Requirement, error) {
	if isNull(v) {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, p.errAt(v, "skills must be a mapping of skill name to version range, found "+kindName(v), "write skills: then one NAME: RANGE per line, indented")
	}
	var out []Requirement
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, r := v.Content[i], yamlstrict.Deref(v.Content[i+1])
		if err := p.checkName(k); err != nil {
			return nil, err
		}
		rng, err := p.rangeOf(r, k.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, Requirement{Name: k.Value, Range: rng, Line: k.Line, Column: k.Column})
	}
	return out, nil
}

// rangeOf reads a range: null or "" is AnyRange.
func (p *fileParser) rangeOf(r *yaml.Node, name string) (string, error) {
	if isNull(r) {
		return AnyRange, nil
	}
	what := "the version range"
	if name != "" {
		what = "the version range of " + name
	}
	if r.Kind != yaml.ScalarNode {
		return "", p.errAt(r, fmt.Sprintf("%s must be a string, found %s", what, kindName(r)), `write a range such as ^1.2, or "*" for any version`)
	}
	rng := strings.TrimSpace(r.Value)
	if rng == "" {
		return AnyRange, nil
	}
	if _, err := ParseRange(rng, true); err != nil {
		return "", p.errAt(r, fmt.Sprintf("%s, %q, does not parse", what, rng), `use ^1.2, ~1.4, ">=1.0, <2.0", 1.x or "*"`)
	}
	return rng, nil
}

func (p *fileParser) checkName(k *yaml.Node) error {
	if k.Kind != yaml.ScalarNode || k.Value == "" {
		return p.errAt(k, "a skill name must be a string, found "+kindName(k), "")
	}
	if source.IsGitName(k.Value) {
		// Git references are read by the installer, which builds them.
		return nil
	}
	if _, err := parseName(k.Value); err != nil {
		msg := strings.TrimPrefix(err.Error(), ErrInvalidName.Error()+": ")
		return p.errAt(k, "bad skill name "+msg, "")
	}
	return nil
}

// sortRequirements sorts by name and refuses a name written twice.
func (p *fileParser) sortRequirements(rs []Requirement) error {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name })
	for i := 1; i < len(rs); i++ {
		if rs[i].Name == rs[i-1].Name {
			a, b := rs[i-1], rs[i]
			if b.Line < a.Line {
				a, b = b, a
			}
			return &FileError{File: p.file, Line: b.Line, Column: b.Column, Err: p.sentinel,
				Message: fmt.Sprintf("skill %s is listed twice (first at line %d)", b.Name, a.Line), Hint: "keep one"}
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func kindName(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case n.Tag == "!!bool":
		return "a boolean"
	case n.Tag == "!!int", n.Tag == "!!float":
		return "the number " + n.Value
	}
	return n.Value
}

// FindManifest picks a project's manifest and lock: manifest, else
// skills.yaml, else gaia-agent.yaml when only it exists; lock, else
// skills.lock beside the manifest.
func FindManifest(manifest, lock string) (mpath, lpath string) {
	mpath = manifest
	if mpath == "" {
		mpath = ManifestFile
		if _, err := os.Stat(mpath); errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Stat(AgentManifestFile); err == nil {
				mpath = AgentManifestFile
			}
		}
	}
	lpath = lock
	if lpath == "" {
		lpath = filepath.Join(filepath.Dir(mpath), LockFile)
	}
	return mpath, lpath
}

// HasProject reports whether a project manifest is where FindManifest
// looks.
func HasProject(manifest string) bool {
	mpath, _ := FindManifest(manifest, "")
	_, err := os.Stat(mpath)
	return err == nil
}
