package main

import (
	"io"
	"reflect"
	"testing"

	spm "github.com/skillpm/skillpm"
	"github.com/spf13/pflag"
)

// notFromUpdateFlags are the fields of spm.InstallRequest that update's
// flags do not set (update names installed skills or the project, never
// references, and chooses roots through the engine's Target).
var notFromUpdateFlags = map[string]bool{
	"Refs": true, "Manifest": true, "Lock": true, "Target": true, "Roots": true, "Origin": true,
	"RegistryOnly": true, "Frozen": true, "NoVCS": true, "Skills": true, "Offline": true,
}

// TestUpdateRequestFields sets every flag of update, then checks that
// the request it passes on, in a project and outside one, sets every
// field of spm.InstallRequest but those its flags have nothing to do
// with: a flag a mode forgets to pass on (as --no-index and
// --allow-downgrade once were in a project) or a new field of the request
// no one decided about fails it.
func TestUpdateRequestFields(t *testing.T) {
	g := &globals{stdout: io.Discard, stderr: io.Discard}
	f := &updateFlags{}
	c := updateCmd(g, f)
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		v := "x"
		switch fl.Value.Type() {
		case "bool":
			v = "true"
		case "int", "count":
			v = "1"
		}
		if err := fl.Value.Set(v); err != nil {
			t.Fatalf("--%s: %v", fl.Name, err)
		}
	})
	for _, project := range []bool{false, true} {
		req := reflect.ValueOf(f.request(g, project))
		typ := req.Type()
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			set := !req.Field(i).IsZero()
			switch {
			case notFromUpdateFlags[name] && set:
				t.Errorf("project=%v: %s is set by update's flags: take it off notFromUpdateFlags", project, name)
			case !notFromUpdateFlags[name] && !set:
				t.Errorf("project=%v: %s is not passed on from update's flags (or, if no flag sets it, add it to notFromUpdateFlags)", project, name)
			}
		}
	}
	if reflect.TypeFor[spm.InstallRequest]().NumField() <= len(notFromUpdateFlags) {
		t.Fatal("the request has no field update's flags set; the check is broken")
	}
}
