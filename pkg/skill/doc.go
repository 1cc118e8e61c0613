// Package skill reads and checks one agent skill: the SKILL.md
// frontmatter and the files beside it (Load, Parse), in a strict mode
// for publishing and a lenient one for skills found in the wild (Mode),
// every problem reported as a Diagnostic with a stable code (Codes) and
// where it is. It models what the engine decides with: the declared
// permissions and the tier a skill claims (Permission, Tier), its
// dependencies, the tools it needs (KnownTools) and its canonical JSON form
// (CanonicalJSON), the config blob of the published OCI artifact.
//
// It does no I/O beyond reading the skill's directory, and knows nothing
// of registries, signatures or hosts: those are the registry, sign and
// install packages.
package skill
