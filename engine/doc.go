// Package engine is skillpm as a library: it makes the decisions the
// command line makes (which project manifest, which source of bare names,
// which host and roots, the trust policy, when the lock is written) so
// that a Go program installs, updates and verifies skills the way
// `skillpm` does, with the same checks. Operations approximately match
// the commands of the skillpm command line, one file per operation.
//
// Open an Engine with Options, then call its operations. Each is a
// method Op(ctx, OpRequest) (*OpResult, error):
//
//	e, err := engine.Open(ctx, engine.Options{Source: "ghcr.io/acme/skills"})
//	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"web-research@^1"}})
//
// Requests that change what is installed embed the shared options:
// Consent (grants, experimental skills) and Checks (minimum tier and the
// refusals that may be let pass). What is the Engine's for every
// operation is in its Options: Resolution (pre-releases, the sparse
// index), Target, the roots (a roots.Target: package install/roots
// decides which roots it names), and Manifest, the project. What an operation reports besides its
// result (warnings, notes, install stages, plans, decisions) goes to one
// slog.Logger, Options.Log (EventKey).
//
// # Operations
//
// Using skills:
//
//	Install           install references, or a project's lock, into the roots
//	Add               add requirements to a project, lock and install it
//	Update            move installed skills, or a project's, within their ranges
//	Remove            take skills out of a project, or the roots that hold them
//	Lock              resolve a project's manifest and write its lock
//	Adopt             take a skill placed by hand under management
//	List              what the roots hold
//	Describe          a skill folder, an installed skill or a published one
//	Outdated          installed skills that have newer versions
//	DependencyGraphs  the dependency graphs, and the chains that pull a skill in
//	Doctor            check the setup: hosts, roots, policy, registries
//	Quarantine        move aside what an advisory withdraws
//	Restore           put quarantined copies back
//
// Making and publishing skills:
//
//	Audit             static audit of folders or published versions
//	Publish           validate, pack, audit, push and sign one skill
//	PublishAll        publish every skill under a folder or git reference
//	Sign              sign a published version
//	Verify            check a published version against the trust policy
//	Promote           countersign a version and verify it again
//	TrustKey          trust a public key in a policy file
//	UntrustKey        take a key out of a policy file
//
// Registries:
//
//	Pull              unpack a published version into a folder
//	Search            search a source's signed index
//	SourceNames       the names of the skills a source holds
//	Bundle            copy a resolution, signatures included, to a layout
//	Mirror            copy skills between sources
//	BuildIndex        build and push a source's search and sparse index
//	SetStatus         yank or deprecate published versions
//	PublishAdvisories publish a signed advisory feed
//	Migrate           migrate Hermes or OpenClaw skills into GAIA skills
//
// Functions that need no Engine (no registry client, policy or roots),
// with the same shape:
//
//	Validate          check skill folders as the registry would
//	LoadPolicy        the trust policy a command obeys, and why
//	ApprovePolicy     approve (or revoke) a project's own policy
//
// Deliberately of another shape: CheckRefs returns only an error (the
// checks Install makes before any I/O, for a server to answer before it
// streams); Search returns the index's own *policycheck.SearchResult;
// Install returns the *install.Result of the install package's
// transaction; Mirror and Bundle return the *registry.MirrorResult of the
// registry's Client.Mirror; Sign returns the *registry.VersionSignature
// that Publish, Promote and BuildIndex report in theirs; Pull returns the
// *registry.PullResult of the registry's Repository.Pull; PublishAll
// shares Publish's request (skillpm publish is one command), Promote
// Sign's (a countersignature is asked for as a signature is); UntrustKey
// shares TrustKey's request and result; DependencyGraphs takes a
// GraphRequest and returns a *GraphResult; LoadPolicy takes a
// PolicyRequest and returns a *PolicyChoice.
// The roots read, for a front end that needs them before or beside an
// operation, are roots.Searched's; the project's files are
// resolve.FindManifest's and the environment hosts.ProcessEnv's.
//
// The packages underneath (install, registry, resolve, tiers, sign) stay
// available for what the Engine does not cover.
package engine
