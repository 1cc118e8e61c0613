package skill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Options control loading and validation.
type Options struct {
	// Mode is Strict (the default) or Lenient.
	Mode Mode
	// Publish adds the rules only publishing enforces: a version is
	// required and 0.0.0 is refused.
	Publish bool
	// KnownTools is where tools_required names are looked up; nil means
	// DefaultKnownTools(). Tools provided by the other skills of a set are added
	// with KnownTools.WithTools.
	KnownTools *KnownTools
	// GaiaLoader adds the refusals GAIA's loader makes beyond the
	// format (GaiaLoaderVersion): a shell:execute binary GAIA has no
	// policy for, an unscoped shell:execute, and the local-capability
	// domains its v1 does not enforce. For a skill meant for GAIA.
	GaiaLoader bool
}

// SkillFile is the name of the file that makes a directory a skill.
const SkillFile = "SKILL.md"

// maxSkillFileBytes bounds SKILL.md; real ones are a few KiB.
const maxSkillFileBytes = 8 << 20

// Load reads the skill in dir and validates it. The skill is nil only when
// it cannot be read at all (no SKILL.md, or frontmatter that does not
// parse); otherwise it is returned even when diagnostics hold errors, so
// tools can still show what was read.
func Load(ctx context.Context, dir string, opts Options) (*Skill, Diagnostics) {
	file, warn, err := findSkillFile(dir)
	if err != nil {
		d := Diagnostic{Code: CodeNoSkillFile, File: filepath.Join(dir, SkillFile),
			Message: err.Error(), Hint: "a skill is a directory with a SKILL.md; run skillpm init NAME to start one"}
		if !errors.Is(err, ErrNoSkillFile) {
			d.Code = CodeUnreadable
			d.Hint = "check that the path exists and is readable"
		}
		return nil, finish(Diagnostics{d}, opts)
	}
	data, err := readBounded(file, maxSkillFileBytes)
	if err != nil {
		return nil, finish(Diagnostics{{Code: CodeUnreadable, File: file, Message: err.Error(), Hint: "check the file's permissions and size"}}, opts)
	}
	s, ds := parse(file, data)
	if warn != nil {
		ds = append(ds, *warn)
	}
	if s == nil {
		return nil, finish(ds, opts)
	}
	s.Dir = dir
	c := &checker{file: file, ds: ds}
	if err := ctx.Err(); err != nil {
		return nil, finish(append(c.ds, Diagnostic{Code: CodeUnreadable, File: file, Message: err.Error()}), opts)
	}
	c.checkDir(s)
	c.checkCommon(s, opts)
	return s, finish(c.ds, opts)
}

// Parse reads SKILL.md content without a directory: the checks that need
// the skill's other files (step files, tools.py, the directory name) are
// skipped. file is used in diagnostics.
func Parse(file string, data []byte, opts Options) (*Skill, Diagnostics) {
	s, ds := parse(file, data)
	if s == nil {
		return nil, finish(ds, opts)
	}
	c := &checker{file: file, ds: ds}
	c.checkCommon(s, opts)
	return s, finish(c.ds, opts)
}

func parse(file string, data []byte) (*Skill, Diagnostics) {
	doc, d := splitFrontmatter(data)
	if d != nil {
		d.File = file
		return nil, Diagnostics{*d}
	}
	node, ds := parseYAML(doc)
	var repairs []Repair
	if node == nil && len(ds) == 1 && ds[0].Code == CodeYAMLSyntax {
		// A top-level value with an unquoted ": " (most often the
		// description) is text to the hosts, whose YAML readers fall back
		// to it; read it as they do, as migrate quotes it, and say so.
		if front, rs, err := RepairYAML(string(doc.front), doc.frontLine); err == nil {
			fixed := doc
			fixed.front = []byte(front)
			if n, ds2 := parseYAML(fixed); n != nil {
				node, ds, repairs = n, ds2, rs
			}
		}
	}
	if node == nil {
		for i := range ds {
			ds[i].File = file
		}
		return nil, ds
	}
	s := &Skill{File: file, Node: node, Body: doc.body, BodyLine: doc.bodyLine, Repairs: repairs}
	c := &checker{file: file}
	if doc.blankBefore > 0 {
		c.addAt(CodeBlankBeforeFront, 1, 1, fmt.Sprintf("%d blank line(s) before the opening --- of the frontmatter", doc.blankBefore),
			"delete them: --- must be the first line (Claude Code, Codex and OpenCode drop a skill whose SKILL.md does not start with it)")
	}
	for _, r := range repairs {
		c.addAt(CodeYAMLUnquoted, r.Line, 1, fmt.Sprintf("%s is not valid YAML as written (an unquoted \": \", or a leading [ or @); read as the text %q, as the hosts read it", r.Key, r.Value),
			fmt.Sprintf("quote the whole value (%s: \"…\"), or run skillpm migrate, which quotes it", r.Key))
	}
	for _, d := range ds { // aliases and merge keys that expanded within bounds
		d.File = file
		c.ds = append(c.ds, d)
	}
	c.decode(s)
	if n := strings.Count(s.Body, "\n"); n > MaxBodyLines {
		c.addAt(CodeBodyTooLong, s.BodyLine, 1, fmt.Sprintf("the Markdown body is %d lines, more than %d", n, MaxBodyLines),
			"move detail into reference files the body links to")
	}
	return s, c.ds
}

// finish assigns severities for the mode and sorts.
func finish(ds Diagnostics, opts Options) Diagnostics {
	for i := range ds {
		sev := severityFor(ds[i].Code, opts.Mode)
		if opts.Publish && (ds[i].Code == CodeVersionMissing || ds[i].Code == CodeVersionUnpublishable || ds[i].Code == CodeDescriptionPlaceholder) {
			sev = Error
		}
		ds[i].Severity = sev
	}
	ds.Sort()
	return ds
}

// findSkillFile returns SKILL.md in dir, accepting skill.md (any case)
// with a warning.
func findSkillFile(dir string) (string, *Diagnostic, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read skill directory: %w", err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("%s is not a directory", dir)
	}
	exact := filepath.Join(dir, SkillFile)
	if fi, err := os.Lstat(exact); err == nil && fi.Mode().IsRegular() {
		return exact, nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read skill directory: %w", err)
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), SkillFile) && e.Type().IsRegular() {
			f := filepath.Join(dir, e.Name())
			return f, &Diagnostic{Code: CodeLowercaseSkillFile, File: f,
				Message: fmt.Sprintf("the skill file is named %s", e.Name()),
				Hint:    "rename it to SKILL.md: GAIA, Claude Code, Codex and OpenCode load only that name and ignore this folder"}, nil
		}
	}
	return "", nil, ErrNoSkillFile
}

func readBounded(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d allowed", file, fi.Size(), max)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// checkCommon runs the checks that need no directory.
func (c *checker) checkCommon(s *Skill, opts Options) {
	if opts.GaiaLoader {
		c.checkGaiaLoader(s)
	}
	if lookup(s.Node, "version") == nil {
		c.addAt(CodeVersionMissing, s.Node.Line, s.Node.Column, "the skill has no version", `add version: "0.1.0"; publishing needs one`)
	}
	// Every skill call is a dependency; an undeclared one is an implicit "*".
	if s.Execution != nil {
		declared := map[string]bool{}
		for _, d := range s.Gaia.Requirements.Skills {
			declared[d.Name], declared[d.ShortName()] = true, true
		}
		for _, call := range s.Execution.Calls {
			if call.Skill != "" && !declared[call.Skill] {
				c.addAt(CodeImplicitDependency, call.Line, call.Column,
					fmt.Sprintf("skill call %s is not declared in metadata.gaia.requirements.skills, so any version will do", call.Skill),
					fmt.Sprintf("declare a range: metadata.gaia.requirements.skills: { %s: ^1 }", call.Skill))
			}
		}
	}
	cat := opts.KnownTools
	if cat == nil {
		cat = DefaultKnownTools()
	}
	own := map[string]bool{}
	for _, t := range s.Gaia.Tools {
		own[t.Name], own[s.Name+"/"+t.Name] = true, true
	}
	if req := lookup(lookup(lookup(s.Node, "metadata"), "gaia"), "tools_required"); req != nil && req.Kind == yaml.SequenceNode {
		for _, e := range req.Content {
			name := e.Value
			if own[name] || cat.Has(name) {
				continue
			}
			c.add(CodeToolUnknown, e, fmt.Sprintf("tools_required names %q, which is not a known tool (searched: %s)", name, strings.Join(cat.Sources(), ", ")),
				"fix the tool name, add a known-tools file, or install it together with the skill that provides it")
		}
	}
}

// checkDir runs the checks that need the skill's directory.
func (c *checker) checkDir(s *Skill) {
	abs, err := filepath.Abs(s.Dir)
	if err == nil && s.Name != "" && ValidName(s.Name) {
		if base := filepath.Base(abs); base != s.Name {
			c.add(CodeNameMismatch, lookup(s.Node, "name"), fmt.Sprintf("name %q differs from the directory name %q", s.Name, base),
				fmt.Sprintf("rename the directory to %s, or set name: %s", s.Name, base))
		}
	}
	if s.Execution != nil {
		for _, call := range s.Execution.Calls {
			if call.Step == "" {
				continue
			}
			p := filepath.Join(s.Dir, filepath.FromSlash(path.Clean(call.Step)))
			fi, err := os.Lstat(p)
			switch {
			case err != nil:
				c.addAt(CodeStepMissing, call.Line, call.Column, fmt.Sprintf("step file %s does not exist", call.Step),
					"create the file or fix the path (relative to the skill directory)")
			case !fi.Mode().IsRegular():
				c.addAt(CodeStepMissing, call.Line, call.Column, fmt.Sprintf("step %s is not a regular file", call.Step),
					"a step is a Markdown file inside the skill")
			}
		}
	}
	c.checkToolsPy(s)
	_ = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".hg" || d.Name() == ".svn") {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 {
			c.ds = append(c.ds, Diagnostic{Code: CodeSymlink, File: p,
				Message: "symbolic links are not allowed in a skill (they are not packed and can point outside it)",
				Hint:    "replace the link with a copy of the file"})
		}
		return nil
	})
}
