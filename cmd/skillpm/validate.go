package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	lenient    bool
	summary    bool
	recursive  bool
	knownTools []string
	host       oneHost
}

func newValidateCmd(g *globals) *cobra.Command {
	var f validateFlags
	c := &cobra.Command{
		Use:   "validate [DIR...]",
		Short: "Check skills against the skill format",
		Long: `Validate checks each skill directory (default: the current directory)
against the skill format and prints compiler-style diagnostics on stderr.
Strict by default: exactly the rules publish and pack apply (a version is
required, 0.0.0 and init's placeholder description are refused); --lenient
reports only what makes a skill unusable as an error. --host gaia also
applies what GAIA's loader refuses although the format allows it (a
shell:execute binary GAIA ships no policy for, an unscoped shell:execute,
the filesystem, env, database and desktop permissions GAIA v1 does not
enforce), as install --host gaia does. Exit status 3 when any skill has
errors.`,
		Example: `  skillpm validate ./web-search
  skillpm validate --lenient --recursive --summary ./skills
  skillpm validate --output json ./web-search
  skillpm validate --host gaia ./migrated/git-status`,
		RunE: func(c *cobra.Command, args []string) error {
			return runValidate(c, g, f, args)
		},
	}
	c.Flags().BoolVar(&f.lenient, "lenient", false, "only errors that make a skill unusable; the rest are warnings")
	c.Flags().BoolVar(&f.summary, "summary", false, "print counts of diagnostics by code instead of each diagnostic")
	c.Flags().BoolVarP(&f.recursive, "recursive", "r", false, "validate every skill found below each DIR")
	c.Flags().StringArrayVar(&f.knownTools, "known-tools", nil, "an extra known-tools `FILE` (the tool names tools_required may name; repeatable)")
	deprecatedAlias(c, "catalog", "known-tools")
	bindOneHost(c.Flags(), &f.host, "", "also check what `HOST` refuses to load (gaia: its loader's permission rules)")
	return c
}

func runValidate(c *cobra.Command, g *globals, f validateFlags, args []string) error {
	if len(args) == 0 {
		args = []string{"."}
	}
	cat, err := loadKnownTools(f.knownTools)
	if err != nil {
		return err
	}
	v, err := engine.Validate(c.Context(), engine.ValidateRequest{Dirs: args, Recursive: f.recursive, Lenient: f.lenient, KnownTools: cat, Host: f.host.name})
	if err != nil {
		return err
	}
	sum, mode := skill.Summarize(v.Results), skill.Strict
	if f.lenient {
		mode = skill.Lenient
	}
	switch {
	case g.json():
		if err := g.writeJSON(validateJSON{Mode: mode.String(), Skills: jsonResults(v.Results), Summary: sum}); err != nil {
			return err
		}
	case f.summary:
		printSummary(g.stdout, sum)
	default:
		for _, r := range v.Results {
			printDiagnostics(g.stderr, r.Diagnostics)
		}
		if !g.quiet {
			fmt.Fprintln(g.stdout, summaryLine(sum))
		}
	}
	if sum.Valid < sum.Skills {
		return classed(errdef.Validation, fmt.Errorf("%d of %s failed %s validation", sum.Skills-sum.Valid, plural(sum.Skills, "skill"), mode))
	}
	return nil
}

func loadKnownTools(files []string) (*skill.KnownTools, error) {
	cat := skill.DefaultKnownTools()
	for _, f := range files {
		var err error
		if cat, err = cat.LoadFile(f); err != nil {
			return nil, classed(errdef.Usage, err)
		}
	}
	return cat, nil
}

type validateJSON struct {
	Mode    string        `json:"mode"`
	Skills  []resultJSON  `json:"skills"`
	Summary skill.Summary `json:"summary"`
}

type resultJSON struct {
	Dir         string             `json:"dir"`
	Name        string             `json:"name,omitempty"`
	Valid       bool               `json:"valid"`
	Diagnostics []skill.Diagnostic `json:"diagnostics"`
}

func jsonResults(rs []skill.Result) []resultJSON {
	out := make([]resultJSON, 0, len(rs))
	for _, r := range rs {
		j := resultJSON{Dir: r.Dir, Valid: !r.Diagnostics.HasErrors(), Diagnostics: r.Diagnostics}
		if j.Diagnostics == nil {
			j.Diagnostics = []skill.Diagnostic{}
		}
		if r.Skill != nil {
			j.Name = r.Skill.Name
		}
		out = append(out, j)
	}
	return out
}

func printSummary(w io.Writer, s skill.Summary) {
	codes := make([]string, 0, len(s.Codes))
	for c := range s.Codes {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		if s.Codes[codes[i]] != s.Codes[codes[j]] {
			return s.Codes[codes[i]] > s.Codes[codes[j]]
		}
		return codes[i] < codes[j]
	})
	fmt.Fprintf(w, "%-28s %s\n", "CODE", "COUNT")
	for _, c := range codes {
		fmt.Fprintf(w, "%-28s %d\n", c, s.Codes[c])
	}
	fmt.Fprintln(w, summaryLine(s))
}

// summaryLine is the one-line verdict: "3 skills: 2 valid, 1 invalid (…)".
func summaryLine(s skill.Summary) string {
	return fmt.Sprintf("%s: %d valid, %d invalid (%s, %s)", plural(s.Skills, "skill"), s.Valid, s.Skills-s.Valid,
		plural(s.Errors, "error"), plural(s.Warnings, "warning"))
}

// plural renders "1 skill" or "2 skills".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func printDiagnostics(w io.Writer, ds skill.Diagnostics) {
	for _, d := range ds {
		fmt.Fprintln(w, d.String())
		if d.Hint != "" {
			fmt.Fprintf(w, "\thint: %s\n", d.Hint)
		}
	}
}

// writeJSON prints v as skillpm's machine output: indented, with every
// key of skillpm's own in snake_case (see snakeKeys and docs/json.md).
func writeJSON(w io.Writer, v any) error {
	norm, err := snakeKeys(v)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(norm)
}
