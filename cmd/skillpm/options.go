package main

import (
	"cmp"
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/resolve"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The one place the engine's shared request options (engine.Consent,
// engine.Checks, engine.Resolution; roots.Target is rootFlags') meet the
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

// The flags of the concepts most commands share (TestFlagConcepts) are
// declared here too, each by one binder, so that a concept has one name,
// one metavar and one kind of value everywhere: --registry (the source a
// command reads or writes), --host, --scope and --policy. A binder marks
// what it declares (sharedFlag); TestFlagConcepts fails on a flag of
// these names declared anywhere else.

// sharedFlag is the annotation the binders put on the flags they declare.
const sharedFlag = "skillpm-shared-option"

// markShared annotates fs's flag name as declared by its binder.
func markShared(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, sharedFlag, []string{name}); err != nil {
		panic(err)
	}
}

// registryOption is the source a command reads or writes: a registry
// namespace or oci-layout:DIR (engine.Options.Source and its kin).
type registryOption struct {
	registry string
}

// defaultRegistryUsage is --registry's help where a command reads bare
// names from it.
const defaultRegistryUsage = "`SOURCE` of bare names: a registry namespace (ghcr.io/acme/skills) or oci-layout:DIR; default the configuration's registry, else the embedded one"

// bindRegistry binds --registry to r, usage ("" for the default) saying
// what the command does with it; old are the command's spellings of
// older releases, kept as hidden deprecated aliases.
func bindRegistry(c *cobra.Command, r *registryOption, usage string, old ...string) {
	fs := c.Flags()
	fs.StringVar(&r.registry, "registry", "", cmp.Or(usage, defaultRegistryUsage))
	markShared(fs, "registry")
	for _, o := range old {
		deprecatedAlias(c, o, "registry")
	}
}

// policyOption is the trust policy file a command reads or edits
// (engine.Options.PolicyFile; "" means the project's, the
// configuration's or the search path's: engine.LoadPolicy).
type policyOption struct {
	policy string
}

// defaultPolicyUsage is --policy's help where a command reads the policy.
const defaultPolicyUsage = "use the trust policy in `FILE` instead of the project's (policy: in skills.yaml), the configuration's or the search path's"

// bindPolicy binds --policy to p, usage ("" for the default) saying what
// the command does with the file.
func bindPolicy(fs *pflag.FlagSet, p *policyOption, usage string) {
	fs.StringVar(&p.policy, "policy", "", cmp.Or(usage, defaultPolicyUsage))
	markShared(fs, "policy")
}

// bindHosts binds the repeatable --host of the commands that act on
// several hosts' roots (roots.Target.Hosts).
func bindHosts(fs *pflag.FlagSet, hosts *[]string) {
	fs.StringArrayVar(hosts, "host", nil, "agent `HOST` whose roots to use, one of those skillpm hosts lists (repeatable)")
	markShared(fs, "host")
}

// oneHost is --host on a command that acts for one host only (whose
// state and hooks a workflow uses, the server's default host, the loader
// validate checks against): a second --host is refused when the command
// line is parsed, rather than one of them silently winning.
type oneHost struct {
	name string
	set  bool
}

// String implements pflag.Value.
func (h *oneHost) String() string { return h.name }

// Set implements pflag.Value: the first --host replaces the default, a
// second is an error.
func (h *oneHost) Set(v string) error {
	if h.set {
		return fmt.Errorf("this command acts for one host, and --host %s was given already: give --host once", h.name)
	}
	h.name, h.set = v, true
	return nil
}

// Type implements pflag.Value.
func (h *oneHost) Type() string { return "string" }

// bindOneHost binds --host to h, whose default is def; usage says what
// the host is for, and the help adds that it takes one.
func bindOneHost(fs *pflag.FlagSet, h *oneHost, def, usage string) {
	h.name = def
	fs.Var(h, "host", usage+" (one host, one of those skillpm hosts lists)")
	markShared(fs, "host")
}

// bindScope binds --scope (user or project) to s, whose default is def;
// usage says what is scoped.
func bindScope(fs *pflag.FlagSet, s *string, def, usage string) {
	fs.StringVar(s, "scope", def, usage)
	markShared(fs, "scope")
}

// projectOption is the project a command reads or changes: --manifest
// (skills.yaml, else gaia-agent.yaml, here) and --lock (skills.lock beside
// the manifest); resolve.FindManifest applies the defaults.
type projectOption struct {
	manifest, lock string
}

// lockOf is the lock of the project whose manifest the engine read, m:
// --lock, else skills.lock beside m (resolve.FindManifest, as the engine
// picks it).
func (p projectOption) lockOf(m *resolve.Manifest) string {
	_, lock := resolve.FindManifest(m.File, p.lock)
	return lock
}

// bindProject binds --manifest and --lock to p; manifestUsage ("" for the
// default) says which manifest the command reads by default.
func bindProject(fs *pflag.FlagSet, p *projectOption, manifestUsage string) {
	fs.StringVar(&p.manifest, "manifest", "", cmp.Or(manifestUsage, "project manifest `FILE` (default skills.yaml, else gaia-agent.yaml)"))
	fs.StringVar(&p.lock, "lock", "", "lockfile `FILE` (default skills.lock beside the manifest)")
	markShared(fs, "manifest")
	markShared(fs, "lock")
}
