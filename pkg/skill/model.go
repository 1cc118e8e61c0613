package skill

import (
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Mode selects how strictly a skill is validated.
type Mode int

const (
	// Strict is for authors: validate, pack and publish. Every rule is an
	// error unless it is documented as a warning.
	Strict Mode = iota
	// Lenient is for reading other people's skills: only what makes the skill
	// unusable is an error; the rest are warnings.
	Lenient
)

func (m Mode) String() string {
	if m == Lenient {
		return "lenient"
	}
	return "strict"
}

// Tier names, lowest first.
const (
	TierExperimental = "experimental"
	TierCommunity    = "community"
	TierVerified     = "verified"
)

// Skill is a parsed SKILL.md and where it came from.
type Skill struct {
	// Dir is the skill directory, or "" when the skill was parsed from bytes.
	Dir string
	// File is the path of SKILL.md used in diagnostics.
	File string
	// Repairs are the frontmatter values read as text because YAML
	// cannot read them as written (lenient loads only); GAIA's loader,
	// a strict YAML reader, refuses such a skill.
	Repairs []Repair

	Name          string
	Description   string
	License       string
	Version       string
	Compatibility string
	Gaia          Gaia
	Execution     *Execution
	// AllowedTools are the allowed-tools entries, in either written form
	// (a string or a list); see EffectivePermissions.
	AllowedTools []string

	// Body is the Markdown after the frontmatter; BodyLine is its first line.
	Body     string
	BodyLine int

	// Node is the frontmatter mapping with file-relative positions. It is the
	// lossless source of the canonical JSON and of migration rewrites.
	Node *yaml.Node
}

// Gaia is metadata.gaia, the GAIA namespace of the frontmatter.
type Gaia struct {
	// SecurityTier is the tier the author claims, "" when not declared.
	SecurityTier  string
	Permissions   []Permission
	Requirements  Requirements
	Tools         []Tool
	ToolsRequired []string
}

// Requirements is metadata.gaia.requirements.
type Requirements struct {
	Model            string
	Context          string
	Python           string
	Dependencies     []string
	NodeDependencies []string
	EnvVars          []string
	Hardware         map[string]any
	// Skills are the declared skill-to-skill dependencies, sorted by name.
	Skills []Dependency
}

// Dependency is a skill this skill needs: a name (or a full reference
// registry/ns/name pinning the source) and a version range.
type Dependency struct {
	Name  string `json:"name"`
	Range string `json:"range"`
	// Implicit is true for an ASF skill call not declared in requirements.skills.
	Implicit bool `json:"implicit,omitempty"`
}

// ShortName is the last path element of the dependency's name.
func (d Dependency) ShortName() string {
	if i := strings.LastIndexByte(d.Name, '/'); i >= 0 {
		return d.Name[i+1:]
	}
	return d.Name
}

// Execution is the ASF execution block.
type Execution struct {
	Calls []Call
}

// Call is one entry of execution.calls: either a skill call or a step call.
type Call struct {
	Skill   string
	Step    string
	AskUser bool
	// Line and Column locate the call in SKILL.md.
	Line, Column int
}

// Tool is one tool the skill provides (metadata.gaia.tools).
type Tool struct {
	Name        string
	Description string
	Parameters  []Param
	Returns     map[string]any
	Atomic      *bool
	Line        int
	Column      int
}

// Param is one declared tool parameter.
type Param struct {
	Name       string
	Type       string
	Required   bool
	Default    any
	HasDefault bool
	Line       int
	Column     int
}

// Tier returns the claimed security tier, experimental when none is declared.
func (s *Skill) Tier() Tier {
	if s.Gaia.SecurityTier == "" {
		return Experimental
	}
	return Tier(s.Gaia.SecurityTier)
}

// Claim returns the tier the skill claims in
// metadata.gaia.security_tier, "" when it claims none: then the trust
// policy alone decides its tier (tiers.Evaluate), where Tier reads the
// absence as experimental.
func (s *Skill) Claim() Tier {
	return Tier(s.Gaia.SecurityTier)
}

// Dependencies returns the declared requirements.skills plus every ASF skill
// call not declared there (as an implicit "*" requirement), sorted by name.
func (s *Skill) Dependencies() []Dependency {
	deps := append([]Dependency(nil), s.Gaia.Requirements.Skills...)
	declared := map[string]bool{}
	for _, d := range deps {
		declared[d.Name] = true
		declared[d.ShortName()] = true
	}
	if s.Execution != nil {
		for _, c := range s.Execution.Calls {
			if c.Skill != "" && !declared[c.Skill] {
				declared[c.Skill] = true
				deps = append(deps, Dependency{Name: c.Skill, Range: "*", Implicit: true})
			}
		}
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].Name < deps[j].Name })
	return deps
}

// ToolNames returns the provided tools as hosts register them: skill/tool.
func (s *Skill) ToolNames() []string {
	out := make([]string, 0, len(s.Gaia.Tools))
	for _, t := range s.Gaia.Tools {
		out = append(out, s.Name+"/"+t.Name)
	}
	return out
}

// PermissionStrings returns the declared permissions in their written form.
func (s *Skill) PermissionStrings() []string {
	out := make([]string, 0, len(s.Gaia.Permissions))
	for _, p := range s.Gaia.Permissions {
		out = append(out, p.String())
	}
	return out
}
