package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagConcepts walks every command's flags: a concept of flagConcepts
// is named by its one flag; an older spelling is only a hidden,
// deprecated alias sharing the flag's value; and a concept's flag has
// one value type everywhere (a --host is repeatable wherever it is).
func TestFlagConcepts(t *testing.T) {
	types := map[string]string{}
	where := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		for _, concept := range flagConcepts {
			canonical := c.Flags().Lookup(concept.name)
			if canonical == nil {
				canonical = c.InheritedFlags().Lookup(concept.name)
			}
			if canonical != nil {
				// One host or several is the command's business (run takes
				// one); the name and the kind of value are the concept's.
				typ := strings.TrimSuffix(canonical.Value.Type(), "Array")
				if prev, ok := types[concept.name]; ok && prev != typ {
					t.Errorf("%s --%s is a %s, %s's a %s: one concept, one type", path, concept.name, typ, where[concept.name], prev)
				} else if !ok {
					types[concept.name], where[concept.name] = typ, path
				}
			}
			for _, old := range concept.aliases {
				f := c.Flags().Lookup(old)
				if f == nil {
					continue
				}
				switch {
				case canonical == nil && f.Hidden && f.Deprecated != "" && sharesValue(c, f):
					// an old name of another flag (migrate --from is --format)
				case canonical == nil:
					t.Errorf("%s names %s --%s; the flag is --%s", path, concept.name, old, concept.name)
				case !f.Hidden || f.Deprecated == "":
					t.Errorf("%s --%s is a second visible name of --%s: make it a hidden deprecated alias (deprecatedAlias)", path, old, concept.name)
				case f.Value != canonical.Value:
					t.Errorf("%s --%s does not set --%s's value", path, old, concept.name)
				}
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Shorthand == "o" && f.Name != "output" {
				t.Errorf("%s -o is --%s; -o is --output everywhere", path, f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&globals{}))
}

// sharesValue reports whether another flag of c sets f's value.
func sharesValue(c *cobra.Command, f *pflag.Flag) bool {
	shared := false
	c.Flags().VisitAll(func(o *pflag.Flag) {
		if o != f && o.Value == f.Value {
			shared = true
		}
	})
	return shared
}

// TestDeprecatedAliasWarns: an old spelling still works, says what to
// use instead as a warning on stderr (a JSON line in JSON mode), and
// never writes to stdout.
func TestDeprecatedAliasWarns(t *testing.T) {
	dir := t.TempDir()
	cliEnv(t, dir)
	var out, errb bytes.Buffer
	// The layout lies in the test's own folder: search builds an index
	// there, which must not land in the source tree.
	code := run(context.Background(), []string{"search", "x", "--source", "oci-layout:" + filepath.Join(dir, "nowhere"), "-o", "json"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), `"level":"warning","message":"Flag --source has been deprecated, use --registry`) {
		t.Errorf("exit %d; stderr %q: want the deprecation as a JSON warning", code, errb.String())
	}
	if strings.Contains(out.String(), "deprecated") {
		t.Errorf("stdout %q carries the deprecation", out.String())
	}
}
