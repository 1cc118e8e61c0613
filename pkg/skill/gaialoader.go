package skill

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// GaiaLoaderVersion is the GAIA release whose loader rules
// Options.GaiaLoader applies (amd/gaia 0.23.0,
// src/gaia/skills/{permissions,binaries}.py).
const GaiaLoaderVersion = "GAIA 0.23.0"

// GaiaBinaries returns the binaries GAIA ships a policy for
// (binaries.py BINARY_POLICIES), the only ones shell:execute may name
// for GAIA to load the skill. A fresh slice each call: callers may sort
// or extend it.
func GaiaBinaries() []string { return []string{"gh", "pytest"} }

// gaiaLocalDomains are the domains GAIA 0.23 calls local-capability
// (permissions.py LOCAL_CAPABILITY_DOMAINS): no bridge enforces them
// until its sandbox exists, so a skill declaring one at any level but
// none is refused rather than loaded unenforced.
var gaiaLocalDomains = []string{"database", "desktop", "env", "filesystem"}

// checkGaiaLoader adds the refusals GAIA's loader makes beyond the
// format's grammar, at the permission that causes each. They read the
// declared permissions only: GAIA ignores allowed-tools.
func (c *checker) checkGaiaLoader(s *Skill) {
	seq := lookup(lookup(lookup(s.Node, "metadata"), "gaia"), "permissions")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return
	}
	for _, e := range seq.Content {
		t, ok := scalarText(e)
		if !ok {
			continue // already an error of the grammar
		}
		p, err := ParsePermission(t)
		if err != nil {
			continue
		}
		if msg, hint := gaiaRefusal(p); msg != "" {
			c.add(CodeGaiaRefused, e, msg, hint)
		}
	}
}

// gaiaRefusal says why GAIA's loader refuses a skill declaring p, with
// how to fix it, or "" when it does not.
func gaiaRefusal(p Permission) (msg, hint string) {
	bins := GaiaBinaries()
	switch {
	case p.Level == "none":
		return "", "" // an explicit denial asks for nothing
	case p.Domain == "shell" && p.Scope == "":
		return fmt.Sprintf("%s refuses %s: it asks for the whole shell, and GAIA grants one binary at a time (permissions.py refuse_unbridged_permissions)", GaiaLoaderVersion, p),
			"scope it to the binary the skill runs, one of " + strings.Join(bins, ", ") + ", e.g. shell:execute:gh"
	case p.Domain == "shell" && !slices.Contains(bins, p.Scope):
		return fmt.Sprintf("%s refuses %s: GAIA ships no policy for %s, only for %s (binaries.py BINARY_POLICIES)", GaiaLoaderVersion, p, p.Scope, strings.Join(bins, ", ")),
			"drop the permission for GAIA, or install the skill for another host"
	case slices.Contains(gaiaLocalDomains, p.Domain):
		return fmt.Sprintf("%s refuses %s: %s is a local-capability domain that GAIA v1 does not enforce, so it refuses the skill (permissions.py LOCAL_CAPABILITY_DOMAINS: %s)", GaiaLoaderVersion, p, p.Domain, strings.Join(gaiaLocalDomains, ", ")),
			"drop the permission for GAIA (its agent's own tools do local access), or install the skill for another host"
	}
	return "", ""
}

// GaiaRefusals returns, as errors, what GAIA's loader refuses in s
// although the format allows it (the rules of Options.GaiaLoader); none
// when GAIA loads it as far as those rules go. For a skill already
// parsed, such as the one an install stages.
func GaiaRefusals(s *Skill) Diagnostics {
	c := &checker{file: s.File}
	c.strictYAML(s, "GAIA's loader")
	c.checkGaiaLoader(s)
	return finish(c.ds, Options{Mode: Strict})
}

// StrictYAMLRefusals returns, as errors, the frontmatter values of s that
// a lenient load read as text (s.Repairs) and a strict YAML reader
// refuses: what a host that reads the frontmatter strictly (reader, such
// as "Amp") would leave the skill out for.
func StrictYAMLRefusals(s *Skill, reader string) Diagnostics {
	c := &checker{file: s.File}
	c.strictYAML(s, reader)
	return finish(c.ds, Options{Mode: Strict})
}

// strictYAML reports each value of s a strict YAML reader refuses.
func (c *checker) strictYAML(s *Skill, reader string) {
	for _, r := range s.Repairs {
		c.addAt(CodeYAMLUnquoted, r.Line, 1, fmt.Sprintf("%s is not valid YAML as written, and %s reads the frontmatter with a strict YAML parser", r.Key, reader),
			fmt.Sprintf("quote the whole value (%s: \"…\"), or run skillpm migrate, which quotes it", r.Key))
	}
}
