// Package migrate turns Hermes and OpenClaw skills into GAIA skills.
//
// Migrate reads a skill directory, maps what its foreign block means
// (metadata.hermes and the Hermes top-level keys, or metadata.openclaw and
// its aliases clawdbot, clawdis, moltbot and clawdhub) onto metadata.gaia,
// fixes what would stop the result from validating (name, version,
// description length, metadata written as a JSON string, a value with an
// unquoted ": "), sets security_tier experimental, and returns the new
// frontmatter with a Report of every field mapped, changed, left unmapped
// and why. The foreign block is kept as it was. Nothing is written until
// Result.Write, which copies the skill atomically; Run does both.
//
// Migrating a migrated skill again changes nothing: the output is a fixed
// point, byte for byte.
package migrate
