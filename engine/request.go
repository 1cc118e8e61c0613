package engine

// The option structs shared by the requests (Consent, Checks) and by
// every operation of an Engine (Resolution, in Options), so that a knob
// is declared once here, bound once to the command line's flags and
// mapped once to install.Options (Engine.options).

// Consent is what a request consents to beyond what the trust policy
// allows by itself.
type Consent struct {
	// Grants consent to declared permissions: PERM for every skill named,
	// NAME:PERM for one (a dependency included).
	Grants []string
	// Yes consents to the dangerous permissions of community skills.
	Yes bool
	// AllowExperimental installs experimental (unsigned or untrusted)
	// skills the request names; never as a dependency.
	AllowExperimental bool
}

// Checks are the refusals of an install or update a request makes
// stricter (MinTier) or lets pass (the others).
type Checks struct {
	// MinTier refuses any skill below it (verified, community,
	// experimental); "" refuses nothing on its tier alone.
	MinTier string
	// AllowAuditFindings installs skills whose static audit blocks at
	// their tier.
	AllowAuditFindings bool
	// AllowSignerChange accepts a skill signed by none of the identities
	// its receipt or lock entry records.
	AllowSignerChange bool
	// AllowDowngrade accepts a lower version than the locked or
	// installed one when the newer one is gone (install.Options).
	AllowDowngrade bool
	// AllowRepublished accepts a version whose digest differs from the
	// one locked or installed (its tag was moved).
	AllowRepublished bool
	// Force overwrites installed skills whose files were edited by hand.
	Force bool
}

// Resolution is how an Engine picks versions in its sources
// (Options.Resolution). It is the Engine's, as its source of bare names
// is, rather than a request's: install, update, outdated, info, verify,
// sign, pull, audit and bundle pick a version of a range the same way.
type Resolution struct {
	// Prerelease lets ranges match pre-releases.
	Prerelease bool
	// NoIndex resolves against the registry's tags and manifests even
	// where the namespace has a signed sparse index.
	NoIndex bool
}

// Working offline is the session's, not a request's: an Engine whose
// registry client is offline (registry.Options.Offline) answers git
// references from the git cache too.
