package resolve

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

var update = flag.Bool("update", false, "rewrite the expected explanations in testdata/cases")

// solveCase is one file of testdata/cases, in a small text language:
//
//	# registry
//	fix 1.0.0 -> code ^2, lint *
//	fix 1.1.0
//	empty                      (a skill that exists with no versions)
//	# roots
//	root -> fix ^1
//	# locked
//	locked fix 1.0.0
//	# options
//	prerelease
//	# expect                   (then "name version" lines, sorted)
//	# expect error             (then the explanation, verbatim, to the end)
//
// Other lines starting with "#" and blank lines before the expectation are
// comments.
type solveCase struct {
	src       *memProvider
	roots     map[string]string
	opts      Options
	wantErr   bool
	want      string // solution lines or explanation
	errOffset int    // byte offset of the explanation, for -update
}

func parseCase(text string) (*solveCase, error) {
	c := &solveCase{src: newMemProvider(), roots: map[string]string{}}
	section := ""
	offset := 0
	lines := strings.SplitAfter(text, "\n")
	for i, raw := range lines {
		offset += len(raw)
		line := strings.TrimSpace(raw)
		switch line {
		case "# registry", "# roots", "# locked", "# options", "# expect":
			section = line[2:]
			continue
		case "# expect error":
			c.wantErr = true
			c.errOffset = offset
			c.want = strings.TrimRight(strings.Join(lines[i+1:], ""), "\n")
			return c, nil
		}
		if section == "expect" {
			if line != "" && !strings.HasPrefix(line, "#") {
				c.want += line + "\n"
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := c.parseLine(section, line); err != nil {
			return nil, errors.New("line " + line + ": " + err.Error())
		}
	}
	return c, nil
}

func (c *solveCase) parseLine(section, line string) error {
	head, deps, hasDeps := strings.Cut(line, "->")
	f := strings.Fields(head)
	var dm map[string]string
	if hasDeps {
		var err error
		if dm, err = parseDeps(deps); err != nil {
			return err
		}
	}
	switch section {
	case "registry":
		switch len(f) {
		case 1:
			if hasDeps {
				return errors.New("requirements need a version")
			}
			c.src.add(f[0], "", nil)
		case 2:
			if _, err := semver.NewVersion(f[1]); err != nil {
				return err
			}
			c.src.add(f[0], f[1], dm)
		default:
			return errors.New("want: name version [-> requirements]")
		}
	case "roots":
		if len(f) != 1 || f[0] != "root" || !hasDeps {
			return errors.New("want: root -> requirements")
		}
		for k, v := range dm {
			c.roots[k] = v
		}
	case "locked":
		if len(f) != 3 || f[0] != "locked" {
			return errors.New("want: locked name version")
		}
		if c.opts.Locked == nil {
			c.opts.Locked = map[string]*semver.Version{}
		}
		c.opts.Locked[f[1]] = semver.MustParse(f[2])
	case "options":
		if line != "prerelease" {
			return errors.New("unknown option")
		}
		c.opts.Prerelease = true
	default:
		return errors.New("line outside a section")
	}
	return nil
}

func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCase(string(data))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			sol, err := Solve(context.Background(), c.src, c.roots, c.opts)
			c.src.checkCalls(t)
			if !c.wantErr {
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
				if got := formatSolution(sol); got != c.want {
					t.Fatalf("solution:\n%s\nwant:\n%s", got, c.want)
				}
				checkSolution(t, c.src, c.roots, c.opts.Prerelease, sol)
				// Backtracking chronologically may pick another solution,
				// but must find one.
				c2, _ := parseCase(string(data))
				c2.opts.chrono = -1
				sol2, err := Solve(context.Background(), c2.src, c2.roots, c2.opts)
				if err != nil {
					t.Fatalf("chronological backtracking fails:\n%v", err)
				}
				checkSolution(t, c2.src, c2.roots, c2.opts.Prerelease, sol2)
				return
			}
			var nse *NoSolutionError
			if !errors.As(err, &nse) || !errors.Is(err, ErrNoSolution) {
				t.Fatalf("want a *NoSolutionError, got solution %v, error %v", sol, err)
			}
			if *update {
				out := string(data[:c.errOffset]) + nse.Explanation + "\n"
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if nse.Explanation != c.want {
				t.Fatalf("explanation:\n%s\n\nwant:\n%s", nse.Explanation, c.want)
			}
			// Identical input, identical text: solve again with the
			// Provider listing versions in the opposite order.
			c2, _ := parseCase(string(data))
			c2.src.reversed = true
			_, err2 := Solve(context.Background(), c2.src, c2.roots, c2.opts)
			if err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("explanation changed on a second solve:\n%v", err2)
			}
			c3, _ := parseCase(string(data))
			c3.opts.chrono = -1
			if _, err3 := Solve(context.Background(), c3.src, c3.roots, c3.opts); !errors.Is(err3, ErrNoSolution) {
				t.Fatalf("chronological backtracking finds a solution: %v", err3)
			}
		})
	}
}

// checkSolution verifies a solution with Masterminds' own Check, not with
// this package's sets: every root and every requirement of every selected
// version is met, and every selected skill is reachable from the roots.
func checkSolution(t *testing.T, src *memProvider, roots map[string]string, pre bool, sol Solution) {
	t.Helper()
	check := func(who, name, rng string) {
		c, err := semver.NewConstraint(rng)
		if err != nil {
			t.Errorf("%s requires %s %q, an invalid range, yet was selected", who, name, rng)
			return
		}
		c.IncludePrerelease = pre
		v, ok := sol[name]
		if !ok {
			t.Errorf("%s requires %s %s, which is not in the solution", who, name, rng)
			return
		}
		if !c.Check(v) {
			t.Errorf("%s requires %s %s, but %s was selected", who, name, rng, v)
		}
	}
	reached := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		v, ok := sol[name]
		if !ok {
			return
		}
		deps, err := src.Dependencies(context.Background(), name, v)
		if err != nil {
			t.Errorf("selected %s@%s is unknown: %v", name, v, err)
			return
		}
		for dn, dr := range deps {
			check(name+"@"+v.String(), dn, dr)
			walk(dn)
		}
	}
	for n, r := range roots {
		check("the project", n, r)
		walk(n)
	}
	for n := range sol {
		if !reached[n] {
			t.Errorf("%s is selected but nothing requires it", n)
		}
	}
}
