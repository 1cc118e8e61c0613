package main

import (
	"io"
	"reflect"
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
	// Fields no flag sets: what the engine's Target chooses (Target,
	// Roots), what other programs set (Origin, RegistryOnly).
	common := []string{"Target", "Roots", "Origin", "RegistryOnly"}
	fi, fa, fu := &installFlags{}, &addFlags{}, &updateFlags{}
	for _, tc := range []struct {
		name    string
		cmd     *cobra.Command
		request func() engine.InstallRequest
		// unset are the fields this command's flags do not set.
		unset []string
	}{
		// install prints its result, not a plan before consent.
		{"install", installCmd(g, fi), func() engine.InstallRequest { return fi.request([]string{"x"}) }, []string{"OnPlan"}},
		// add names skills in skills.yaml (AddRequest), installs the whole
		// project without git sources of its own, and has no flags for
		// the audit or downgrades; Manifest and Lock are AddRequest's.
		{"add", addCmd(g, fa), fa.request, []string{"Refs", "Manifest", "Lock", "Frozen", "NoVCS", "Skills", "Offline", "AllowAuditFindings", "AllowDowngrade", "OnPlan"}},
		// update names installed skills or the project (UpdateRequest,
		// ProjectUpdateRequest), never references.
		{"update", updateCmd(g, fu), func() engine.InstallRequest { return fu.request(g, false) }, []string{"Refs", "Manifest", "Lock", "Frozen", "NoVCS", "Skills", "Offline"}},
		{"update in a project", nil, func() engine.InstallRequest { return fu.request(g, true) }, []string{"Refs", "Manifest", "Lock", "Frozen", "NoVCS", "Skills", "Offline"}},
	} {
		if tc.cmd != nil {
			setEveryFlag(t, tc.cmd)
		}
		unset := map[string]bool{}
		for _, n := range append(tc.unset, common...) {
			unset[n] = true
		}
		req := reflect.ValueOf(tc.request())
		typ := req.Type()
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			set := !req.Field(i).IsZero()
			switch {
			case unset[name] && set:
				t.Errorf("%s: %s is set by its flags: take it off the list of fields they do not set", tc.name, name)
			case !unset[name] && !set:
				t.Errorf("%s: %s is not passed on from its flags (or, if no flag sets it, list it as one they do not set)", tc.name, name)
			}
		}
		if typ.NumField() <= len(unset) {
			t.Fatalf("%s: the request has no field its flags set; the check is broken", tc.name)
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
