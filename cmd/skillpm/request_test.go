package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestRequestFields sets every flag of install, add and update, then
// checks that the request each passes on (update's in a project and
// outside one) sets every field of engine.InstallRequest but those its
// flags have nothing to do with: a flag a command or a mode forgets to
// pass on (as update in a project once left out --no-index and
// --allow-downgrade) or a new field of the request no one decided about
// fails it.
func TestRequestFields(t *testing.T) {
	g := &globals{stdout: io.Discard, stderr: io.Discard}
	// Fields no flag sets: what other programs set (Origin,
	// RegistryOnly).
	common := []string{"Origin", "RegistryOnly"}
	fi, fa, fu := &installFlags{}, &addFlags{}, &updateFlags{}
	for _, tc := range []struct {
		name    string
		cmd     *cobra.Command
		request func() engine.InstallRequest
		// unset are the fields this command's flags do not set.
		unset []string
	}{
		{"install", installCmd(g, fi), func() engine.InstallRequest { return fi.request([]string{"x"}) }, nil},
		// add's Refs are its arguments, the requirements it writes into
		// skills.yaml; it installs the whole project, without git
		// sources of its own.
		{"add", addCmd(g, fa), fa.request, []string{"Refs", "Frozen", "NoVCS", "Skills"}},
		// update names installed skills or the project's (UpdateRequest
		// in a project or not), never references.
		{"update", updateCmd(g, fu), fu.request, []string{"Refs", "Frozen", "NoVCS", "Skills"}},
	} {
		if tc.cmd != nil {
			setEveryFlag(t, tc.cmd)
		}
		unset := map[string]bool{}
		for _, n := range append(tc.unset, common...) {
			unset[n] = true
		}
		fields := leafFields(reflect.ValueOf(tc.request()), "")
		for name, set := range fields {
			switch {
			case unset[name] && set:
				t.Errorf("%s: %s is set by its flags: take it off the list of fields they do not set", tc.name, name)
			case !unset[name] && !set:
				t.Errorf("%s: %s is not passed on from its flags (or, if no flag sets it, list it as one they do not set)", tc.name, name)
			}
		}
		for n := range unset {
			if _, ok := fields[n]; !ok {
				t.Errorf("%s: %s is listed as a field its flags do not set, but the request has no such field", tc.name, n)
			}
		}
		if len(fields) <= len(unset) {
			t.Fatalf("%s: the request has no field its flags set; the check is broken", tc.name)
		}
	}
}

// leafFields maps each field of the struct v to whether it is set, the
// fields of an embedded struct (engine.Consent, Checks, Resolution) as
// fields of v's own: a command that forgets one field of a shared struct
// fails as one that forgets a field of the request.
func leafFields(v reflect.Value, prefix string) map[string]bool {
	out := map[string]bool{}
	typ := v.Type()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			maps.Copy(out, leafFields(v.Field(i), prefix))
			continue
		}
		out[prefix+f.Name] = !v.Field(i).IsZero()
	}
	return out
}

// TestSharedFlagsBoundOnce checks that the flags of the engine's shared
// request options, and those of the concepts most commands share
// (sharedConcepts), are declared in options.go only: a command that
// declared --grant (or --allow-downgrade, ...) itself would bind it to a
// field of its own and copy it into the request by hand, which is how
// update in a project once dropped two of them. The commands whose flag
// of the same name means something else are listed, with why.
func TestSharedFlagsBoundOnce(t *testing.T) {
	shared := map[string]bool{}
	fs := pflag.NewFlagSet("shared", pflag.ContinueOnError)
	bindConsent(fs, &engine.Consent{})
	bindChecks(fs, &engine.Checks{})
	bindResolution(fs, &engine.Resolution{})
	fs.VisitAll(func(fl *pflag.Flag) { shared[fl.Name] = true })
	for _, name := range sharedConcepts {
		shared[name] = true
	}
	// Same name, another knob: not a request's shared option.
	other := map[string]string{
		"asf.go:force":                    "replaces a running workflow",
		"run.go:force":                    "replaces a running workflow",
		"keygen.go:force":                 "overwrites key files",
		"migrate.go:force":                "replaces an output folder",
		"remove.go:force":                 "install.RemoveOptions.Force",
		"publish.go:force":                "overwrites a published version",
		"publish.go:allow-audit-findings": "publishes what the audit blocks",
		"lock.go:allow-republished":       "LockRequest's git tags moved",
		"mirror.go:min-tier":              "MirrorRequest's filter",
		"verify.go:min-tier":              "VerifyRequest's exit status",
		"publish.go:pre":                  "regFlags.addRegistry: the engine's Resolution for the commands that read one published version",
		"outdated.go:pre":                 "the engine's Resolution, worded for outdated: pre-releases count as wanted and latest",
		"trust.go:scope":                  "the repositories a trusted key's signatures count for, not the roots' user or project",
		"info.go:manifest":                "prints the OCI manifest as stored, not a project manifest file",
		"policy.go:manifest":              "the project whose policy: to approve (it has no lock to name)",
		"policy.go:yes":                   "approves the trust policy shown, not a skill's permissions",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen, used := 0, map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == "options.go" {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasSuffix(sel.Sel.Name, "Var") && !strings.HasSuffix(sel.Sel.Name, "VarP") {
				return true
			}
			for _, a := range call.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				name, err := strconv.Unquote(lit.Value)
				if err != nil || !shared[name] {
					continue
				}
				seen++
				used[file+":"+name] = true
				if other[file+":"+name] == "" {
					t.Errorf("%s: declares --%s itself; bind the shared struct with options.go's bind function instead", fset.Position(lit.Pos()), name)
				}
				break
			}
			return true
		})
	}
	if seen == 0 {
		t.Fatal("no flag declaration found at all; the check is broken")
	}
	for k := range other {
		if !used[k] {
			t.Errorf("%s is listed as a flag of the same name that means something else, but no longer declared there: take it off the list", k)
		}
	}
}

// setEveryFlag gives every flag of c a value other than its zero.
func setEveryFlag(t *testing.T, c *cobra.Command) {
	t.Helper()
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		v := "x"
		switch fl.Value.Type() {
		case "bool":
			v = "true"
		case "int", "count", "duration":
			v = "1"
		}
		if fl.Value.Type() == "duration" {
			v = "1s"
		}
		if err := fl.Value.Set(v); err != nil {
			t.Fatalf("%s --%s: %v", c.Name(), fl.Name, err)
		}
	})
}
