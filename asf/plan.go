package asf

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
)

// DefaultMaxDepth bounds how deeply skill calls nest (the root skill is
// depth 1). Real workflows are two or three deep; the bound turns a runaway
// chain of distinct skills into an error that names it.
const DefaultMaxDepth = 16

// Step modes, as the reference runtime writes them.
const (
	ModeAutomatic        = "automatic"
	ModeUserConfirmation = "user_confirmation"
)

// Step kinds.
const (
	// KindStep is a step call: a Markdown file inside a skill.
	KindStep = "step"
	// KindSkill is a called skill without execution.calls, run as one step
	// whose instructions are its SKILL.md body.
	KindSkill = "skill"
)

// Step is one step of an expanded workflow. Key, Skill, File and Mode are
// the reference runtime's fields with the same values; the rest are
// skillpm's.
type Step struct {
	Key   string `json:"key"`
	Skill string `json:"skill"`
	// File is "<skill>/<step file>" relative to the skill's search root,
	// or "<skill>/SKILL.md" for a KindSkill step.
	File string `json:"file"`
	Mode string `json:"mode"`
	Kind string `json:"kind"`
	// CallPath is the spec's call path: root skill, called skills, then the
	// step file (absent for a KindSkill step).
	CallPath []string `json:"callPath"`
	// Path is the absolute path of the file holding the instructions.
	Path string `json:"path"`
}

// Plan is a workflow expanded depth-first into its steps.
type Plan struct {
	// Skill is the root skill's name.
	Skill string `json:"skill"`
	// Dir is the root skill's directory.
	Dir string `json:"dir"`
	// Root is the search root the root skill was found in.
	Root  string `json:"root"`
	Steps []Step `json:"steps"`
}

// NormalizeSkillName turns what a user or adapter typed into a skill name
// the way the reference does ("/fix" and " fix " are fix) and refuses names
// that are paths.
func NormalizeSkillName(s string) (string, error) {
	name := strings.TrimLeft(strings.TrimSpace(s), "/")
	switch {
	case name == "":
		return "", fmt.Errorf("%w: empty", ErrInvalidSkillName)
	case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
		return "", fmt.Errorf("%w %q: name a skill, not a path", ErrInvalidSkillName, s)
	}
	return name, nil
}

// loaded is a skill found in a search root.
type loaded struct {
	s    *skill.Skill
	name string
	dir  string
	root string
}

func (l *loaded) calls() []skill.Call {
	if l.s.Execution == nil {
		return nil
	}
	return l.s.Execution.Calls
}

// finder locates and loads skills by name along a search path.
type finder struct {
	dirs  []string
	cache map[string]*loaded
}

// find returns the directory and root of the first <root>/<name>/SKILL.md.
func (f *finder) find(name string) (dir, root string, ok bool) {
	for _, r := range f.dirs {
		d := filepath.Join(r, name)
		if fi, err := os.Stat(filepath.Join(d, skill.SkillFile)); err == nil && fi.Mode().IsRegular() {
			return d, r, true
		}
	}
	return "", "", false
}

func (f *finder) notFound(name string) error {
	return fmt.Errorf("%w: %s (%s)", ErrSkillNotFound, name, searched(f.dirs))
}

// searched describes a search path by the roots that exist, since most of
// the hosts' roots usually do not.
func searched(dirs []string) string {
	var existing []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			existing = append(existing, d)
		}
	}
	if len(existing) == 0 {
		return "no skills root exists; set " + EnvSkillsRoot + " or install the skill"
	}
	return "searched: " + strings.Join(existing, ", ")
}

// load reads a skill, leniently: only what makes it unusable is an error.
// Missing step files are left to the planner, which names the call path.
func (f *finder) load(ctx context.Context, name string) (*loaded, error) {
	if l, ok := f.cache[name]; ok {
		return l, nil
	}
	dir, root, ok := f.find(name)
	if !ok {
		return nil, f.notFound(name)
	}
	s, ds := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
	var errs skill.Diagnostics
	for _, d := range ds.Errors() {
		if d.Code != skill.CodeStepMissing {
			errs = append(errs, d)
		}
	}
	if s == nil || len(errs) > 0 {
		if len(errs) == 0 {
			errs = ds.Errors()
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidSkill, &skill.ValidationError{Diagnostics: errs})
	}
	l := &loaded{s: s, name: name, dir: dir, root: root}
	if f.cache == nil {
		f.cache = map[string]*loaded{}
	}
	f.cache[name] = l
	return l, nil
}

// Plan resolves the named skill along the search path and expands its
// execution.calls depth-first: a step call is one step; a skill call is
// replaced by the called skill's steps, or by one KindSkill step when the
// called skill has no calls. Errors inside the workflow are *PlanError.
func (r *Runner) Plan(ctx context.Context, name string) (*Plan, error) {
	name, err := NormalizeSkillName(name)
	if err != nil {
		return nil, err
	}
	f := &finder{dirs: r.opts.SkillDirs}
	root, err := f.load(ctx, name)
	if err != nil {
		if _, _, found := f.find(name); found {
			return nil, &PlanError{Path: []string{name}, Err: err}
		}
		return nil, err
	}
	if len(root.calls()) == 0 {
		return nil, fmt.Errorf("%s: %w: SKILL.md does not declare execution.calls", name, ErrNotWorkflow)
	}
	p := &planner{ctx: ctx, f: f, max: r.opts.maxDepth(), used: map[string]bool{}}
	if err := p.expand([]string{name}, root); err != nil {
		return nil, err
	}
	return &Plan{Skill: name, Dir: root.dir, Root: root.root, Steps: p.steps}, nil
}

type planner struct {
	ctx   context.Context
	f     *finder
	max   int
	used  map[string]bool
	steps []Step
}

func extend(p []string, elem string) []string {
	return append(append([]string(nil), p...), elem)
}

// expand appends l's steps; callPath ends with l's name and doubles as the
// stack of skills being expanded, for cycle detection.
func (p *planner) expand(callPath []string, l *loaded) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	for _, c := range l.calls() {
		if c.Step != "" {
			if err := p.addStep(callPath, l, c); err != nil {
				return err
			}
			continue
		}
		name := c.Skill
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			// registry/ns/name pins a source at install time; installed
			// skills are found by their short name.
			name = name[i+1:]
		}
		cp := extend(callPath, name)
		for _, s := range callPath {
			if s == name {
				return &PlanError{Path: cp, Err: ErrCycle}
			}
		}
		if len(cp) > p.max {
			return &PlanError{Path: cp, Err: fmt.Errorf("%w (limit %d)", ErrTooDeep, p.max)}
		}
		child, err := p.f.load(p.ctx, name)
		if err != nil {
			return &PlanError{Path: cp, Err: err}
		}
		if len(child.calls()) > 0 {
			if err := p.expand(cp, child); err != nil {
				return err
			}
			continue
		}
		p.steps = append(p.steps, Step{
			Key:      uniqueKey(sanitizeKey(name), p.used),
			Skill:    name,
			File:     name + "/" + skill.SkillFile,
			Mode:     ModeAutomatic,
			Kind:     KindSkill,
			CallPath: cp,
			Path:     child.s.File,
		})
	}
	return nil
}

func (p *planner) addStep(callPath []string, l *loaded, c skill.Call) error {
	cp := extend(callPath, c.Step)
	rel := path.Clean(strings.ReplaceAll(c.Step, `\`, "/"))
	file := filepath.Join(l.dir, filepath.FromSlash(rel))
	// No component below the skill may be a link: a step under a linked
	// directory would be read from outside the skill.
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(l.dir, filepath.FromSlash(d))); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return &PlanError{Path: cp, Err: fmt.Errorf("%w: %s is under %s, a symbolic link; a step must be inside the skill", ErrSymlink, file, d)}
		}
	}
	fi, err := os.Lstat(file)
	switch {
	case err != nil:
		return &PlanError{Path: cp, Err: fmt.Errorf("%w: %s", ErrStepFileNotFound, file)}
	case !fi.Mode().IsRegular():
		return &PlanError{Path: cp, Err: fmt.Errorf("%w: %s is not a regular file", ErrStepFileNotFound, file)}
	}
	mode := ModeAutomatic
	if c.AskUser {
		mode = ModeUserConfirmation
	}
	p.steps = append(p.steps, Step{
		Key:      StepKey(l.name, c.Step, p.used),
		Skill:    l.name,
		File:     l.name + "/" + c.Step,
		Mode:     mode,
		Kind:     KindStep,
		CallPath: cp,
		Path:     file,
	})
	return nil
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// sanitizeKey is the reference's key rule: runs of characters other than
// ASCII letters and digits become "_", trimmed, uppercased; "STEP" if
// nothing is left.
func sanitizeKey(raw string) string {
	k := strings.ToUpper(strings.Trim(nonAlnum.ReplaceAllString(raw, "_"), "_"))
	if k == "" {
		return "STEP"
	}
	return k
}

// uniqueKey suffixes _2, _3, … until key is unused, then records it.
func uniqueKey(key string, used map[string]bool) string {
	k := key
	for n := 2; used[k]; n++ {
		k = fmt.Sprintf("%s_%d", key, n)
	}
	used[k] = true
	return k
}

// StepKey is the reference runtime's key for a step call: "<skill>_<file
// stem>" sanitized (DIAGNOSIS_001_CAPTURE_CLASSIFY), made unique against
// used (which it updates) with _2, _3.
func StepKey(skillName, stepFile string, used map[string]bool) string {
	base := path.Base(strings.ReplaceAll(stepFile, `\`, "/"))
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return uniqueKey(sanitizeKey(skillName+"_"+base), used)
}
