package main

import (
	"github.com/skillpm/skillpm/engine"
	"github.com/spf13/pflag"
)

// The one place the engine's shared request options (engine.Consent,
// engine.Checks, engine.Resolution; engine.Target is rootFlags') meet the
// command line: one function binds each struct to its flags, and a
// command with the knobs embeds the struct in its request whole, so that
// no command declares these flags itself or copies them field by field
// (TestRequestFields, TestSharedFlagsBoundOnce).

// bindConsent binds --grant, --yes and --allow-experimental to c.
func bindConsent(fs *pflag.FlagSet, c *engine.Consent) {
	fs.StringArrayVar(&c.Grants, "grant", nil, "grant a declared permission `PERM` to the skills named (NAME:PERM for one skill, a dependency included; repeatable)")
	fs.BoolVarP(&c.Yes, "yes", "y", false, "consent to the dangerous permissions of community skills")
	fs.BoolVar(&c.AllowExperimental, "allow-experimental", false, "accept experimental (unsigned or untrusted) versions of the skills named on the command line, never of a dependency")
}

// bindChecks binds --min-tier, the --allow-* escapes and --force to c.
func bindChecks(fs *pflag.FlagSet, c *engine.Checks) {
	fs.StringVar(&c.MinTier, "min-tier", "", "refuse any skill below `TIER` (verified, community, experimental)")
	fs.BoolVar(&c.AllowAuditFindings, "allow-audit-findings", false, "accept skills whose static audit blocks at their tier")
	fs.BoolVar(&c.AllowSignerChange, "allow-signer-change", false, "accept a skill signed by none of the identities recorded when it was installed or locked")
	fs.BoolVar(&c.AllowDowngrade, "allow-downgrade", false, "accept a lower version than the locked or installed one when the newer one is gone")
	fs.BoolVar(&c.AllowRepublished, "allow-republished", false, "accept a version whose digest differs from the one locked or installed (its tag was moved)")
	fs.BoolVar(&c.Force, "force", false, "overwrite installed skills whose files were edited by hand")
}

// bindResolution binds --pre and --no-index to r.
func bindResolution(fs *pflag.FlagSet, r *engine.Resolution) {
	fs.BoolVar(&r.Prerelease, "pre", false, "let ranges match pre-releases")
	fs.BoolVar(&r.NoIndex, "no-index", false, "resolve against the registry's tags and manifests even where the namespace has a signed sparse index")
}
