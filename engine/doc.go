// Package engine is the entry point to skillpm as a library: it makes the
// decisions the command line makes (which project manifest, which source
// of bare names, which host and roots, the trust policy, when the lock is
// written) so that a Go program installs, updates and verifies skills the
// way `skillpm` does, with the same checks.
//
// Open an Engine with Options, then call its operations; each takes a
// context and a request and returns a result, one file per operation:
//
//	e, err := engine.Open(ctx, engine.Options{Source: "ghcr.io/acme/skills"})
//	res, err := e.Install(ctx, engine.InstallRequest{Refs: []string{"web-research@^1"}})
//
// Requests that change what is installed embed the shared options:
// Consent (grants, experimental skills), Checks (minimum tier and the
// refusals that may be let pass) and Resolution (pre-releases, the sparse
// index); Target names the roots.
//
// The operations, by what a user is doing:
//
//   - Using skills: Install, Add, Update, UpdateProject, Remove,
//     RemoveProject, Lock, Adopt, List, Describe, Outdated, Why,
//     DependencyGraphs, Doctor, Hosts, Quarantine, Restore.
//   - Making skills: Validate (a function), Audit, Publish, PublishAll.
//   - Signing and trust: Sign, Verify, Promote, TrustKey, UntrustKey,
//     VerifyBlob (a function).
//   - Registries: Info, Pull, Search, SourceNames, Bundle, Mirror,
//     BuildIndex, SetStatus, PublishAdvisories.
//
// The packages underneath (install, registry, resolve, tiers, sign) stay
// available for what the Engine does not cover.
package engine
