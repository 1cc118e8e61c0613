package skill

import (
	"context"
	"strings"
	"testing"
)

// TestGaiaLoader: the permissions GAIA 0.23's loader refuses are errors
// with Options.GaiaLoader, at the permission's line, naming GAIA's rule;
// without it the format alone decides, and allows them.
func TestGaiaLoader(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		perm string
		rule string // "" when GAIA loads it
	}{
		{"shell:execute:gh", ""},
		{"shell:execute:pytest", ""},
		{"network:read:*.brave.com", ""},
		{"mcp:connect:mcp-tavily", ""},
		{"filesystem:none", ""},
		{"shell:none", ""},
		{"shell:execute:jq", "binaries.py BINARY_POLICIES"},
		{"shell:execute", "grants one binary at a time"},
		{"filesystem:read", "LOCAL_CAPABILITY_DOMAINS"},
		{"filesystem:write:./**", "LOCAL_CAPABILITY_DOMAINS"},
		{"env:read", "LOCAL_CAPABILITY_DOMAINS"},
		{"database:read", "LOCAL_CAPABILITY_DOMAINS"},
		{"desktop:control", "LOCAL_CAPABILITY_DOMAINS"},
	}
	for _, c := range cases {
		t.Run(c.perm, func(t *testing.T) {
			dir := writeSkill(t, "probe", "---\nname: probe\ndescription: probes one permission\nversion: 1.0.0\nmetadata:\n  gaia:\n    permissions:\n      - "+c.perm+"\n---\nbody\n")
			_, plain := Load(ctx, dir, Options{})
			if plain.Has(CodeGaiaRefused) {
				t.Fatalf("reported without GaiaLoader:\n%s", render(plain))
			}
			_, ds := Load(ctx, dir, Options{GaiaLoader: true})
			if c.rule == "" {
				if ds.Has(CodeGaiaRefused) {
					t.Fatalf("GAIA loads %s, but it was refused:\n%s", c.perm, render(ds))
				}
				return
			}
			var got *Diagnostic
			for i := range ds {
				if ds[i].Code == CodeGaiaRefused {
					got = &ds[i]
				}
			}
			if got == nil || got.Severity != Error || got.Line != 8 {
				t.Fatalf("want a %s error at line 8, got:\n%s", CodeGaiaRefused, render(ds))
			}
			for _, want := range []string{GaiaLoaderVersion, c.perm, c.rule} {
				if !strings.Contains(got.Message, want) {
					t.Errorf("message %q does not name %q", got.Message, want)
				}
			}
			if got.Hint == "" {
				t.Error("no hint saying how to fix it")
			}
			_, lenient := Load(ctx, dir, Options{Mode: Lenient, GaiaLoader: true})
			if lenient.HasErrors() {
				t.Errorf("lenient: want a warning, got:\n%s", render(lenient))
			}
		})
	}
}
