// Package resolve chooses one version of every skill a project needs, with
// the PubGrub algorithm of Dart pub (Natalie Weizenbaum, "PubGrub:
// Next-Generation Version Solving"), and explains in plain English why no
// choice exists when none does.
//
// [Solve] takes the project's requirements (skill name to Masterminds
// range) and a [Provider] of published versions and their requirements. It
// is complete: it fails only when no solution exists, and then returns a
// [*NoSolutionError] whose text derives the failure step by step, as pub
// and uv do:
//
//	Because every version of fix depends on code ^2 which depends on lint <1, every version of fix requires lint <1.
//	So, because the project depends on both fix ^1 and lint ^1, version solving failed.
//
//	Loosen or change the requirement on fix or lint, or publish a compatible version of code or fix.
//
// Version ranges are Masterminds/semver ranges. PubGrub needs intersection,
// union and complement of ranges, which Masterminds constraints do not
// support, so [ParseRange] turns a range into an exact [VersionSet] that
// agrees with Masterminds' Check on every version, pre-release rules
// included.
//
// The solver keeps no package-level state, does no I/O but through the
// Provider, and is deterministic: the same requirements and Provider answers
// give the same solution and the same explanation, byte for byte.
package resolve
