// Package asf is skillpm's bundled runner for ASF v0.1 workflows: skills
// whose SKILL.md declares execution.calls.
//
// It is command-compatible with the ASF reference runtime (asf-run.sh): the
// same commands (init, inspect, complete, rewind, resume, interrupt, current,
// validate), the same step keys and order, and a state file that carries the
// reference runtime's fields (control, runtime, data) next to the spec's
// session snapshot (activeSkill, currentPath, status, stopPolicy).
//
// Where it deliberately differs:
//
//   - A called skill without execution.calls becomes one step whose
//     instructions are its SKILL.md body, keyed by the skill name uppercased
//     (CODE). The reference adds nothing for such a skill, so its own fix
//     example silently skips code. Step calls get exactly the reference keys
//     (DIAGNOSIS_001_CAPTURE_CLASSIFY, duplicates _2, _3) in the same order.
//   - Cycles, missing skills, missing step files and invalid SKILL.md files
//     are errors at plan time that name the call path
//     (fix > diagnosis > 009-missing.md); nothing is written before the whole
//     plan resolves.
//   - complete only completes the current step unless forced, and a
//     user_confirmation step needs an explicit confirmation.
//   - State is session-scoped under a host's state root, written atomically
//     and locked while it changes.
//
// The package prints nothing: commands return values and the CLI
// (cmd/skillpm) prints them.
package asf
