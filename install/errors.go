package install

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors.
var (
	// ErrLocked means another skillpm holds the root's lock past the wait.
	ErrLocked = errdef.New(errdef.Conflict, "install root is locked by another skillpm")
	// ErrRootChanged means another skillpm committed to a root between
	// the reading of its receipts and the commit, which was not made.
	ErrRootChanged = errdef.New(errdef.Conflict, "install root changed during the install")
	// ErrEdited means an installed skill's files differ from its receipt.
	ErrEdited = errdef.New(errdef.Conflict, "installed skill was edited by hand")
	// ErrNotInstalled names a skill the root has no receipt for.
	ErrNotInstalled = errdef.New(errdef.NotFound, "skill is not installed")
	// ErrDependedUpon means other installed skills need the one to remove.
	ErrDependedUpon = errdef.New(errdef.Conflict, "skill is needed by other installed skills")
	// ErrReceipt means the receipts file cannot be read.
	ErrReceipt = errdef.New(errdef.Internal, "install receipts are unreadable")
	// ErrUnsafeReceipt means the receipts or the install journal of a
	// root hold a record that is not skillpm's own: a name that is not a
	// skill name, or a path that leaves the root. A project's roots live
	// in its repository, so whoever wrote it wrote them.
	ErrUnsafeReceipt = errdef.New(errdef.Validation, "install receipts hold an unsafe record")
	// ErrRootOutside means a project root, or its state folder, is a
	// symlink (committed with the project) out of the project.
	ErrRootOutside = errdef.New(errdef.Validation, "project root leaves the project")
	// ErrDrift means an installed skill's files differ from the content
	// the lock and its verified manifest name, while its receipt claims
	// they match: the receipt, part of the project, was edited with them.
	ErrDrift = errdef.New(errdef.Conflict, "installed files differ from the lock")
	// ErrDowngrade means an update would lower an installed version.
	ErrDowngrade = errdef.New(errdef.Conflict, "update would downgrade a skill")
	// ErrRepublished means a version's manifest digest differs from the
	// one locked or installed for it: its tag was moved.
	ErrRepublished = errdef.New(errdef.Trust, "version republished with other content")
	// ErrLinked means links skillpm made still point to the copy to remove.
	ErrLinked = errdef.New(errdef.Conflict, "skill is linked from other roots")
	// ErrNoAuditor reports an install with no Auditor and without
	// NoAuditUnsafe: the library never skips the audit by omission.
	ErrNoAuditor = errdef.New(errdef.Usage, "no auditor: set Options.Auditor (install/auditor), or NoAuditUnsafe to install without the static audit")
	// ErrAuditFailed means the static audit failed on a skill: inside
	// the auditor on a staged skill (it panicked), when the skill is not
	// installed and nothing of the install is committed; or before it
	// could run, as when an audit of a directory cannot read it (the
	// cause is wrapped beside it).
	ErrAuditFailed = errdef.New(errdef.Internal, "the audit failed on this skill")
	// ErrGaiaRefused means a skill to install for GAIA declares what
	// GAIA's loader refuses (skill.GaiaRefusals): GAIA would not load it.
	ErrGaiaRefused = errdef.New(errdef.Validation, "GAIA would not load the skill")
	// ErrHostRefused means a skill to install for a host that reads the
	// frontmatter as strict YAML has a value only a lenient reader reads
	// (skill.StrictYAMLRefusals): that host would leave it out.
	ErrHostRefused = errdef.New(errdef.Validation, "the host would not load the skill")
	// ErrUnsupportedRef names a reference that cannot be installed by name.
	ErrUnsupportedRef = errdef.New(errdef.Usage, "reference cannot be installed")
)

// NotInstalledError names skills asked for by name (to update or remove)
// that no host's roots hold, and the roots looked in.
type NotInstalledError struct {
	// Names are the skills asked for.
	Names []string
	// looked are the roots read.
	looked []string
}

// NotInstalledAnywhere is the error for names that no root of any host
// holds: every root of AllSearchRoots(env) was looked in.
func NotInstalledAnywhere(env Env, names []string) error {
	var looked []string
	for _, rt := range AllSearchRoots(env) {
		looked = append(looked, rt.Dir)
	}
	return &NotInstalledError{Names: names, looked: looked}
}

func (e *NotInstalledError) Error() string {
	return strings.Join(e.Names, ", ") + " is not installed in any host's roots (looked in " + rootsLooked(e.looked) + ")"
}

// Unwrap returns ErrNotInstalled.
func (e *NotInstalledError) Unwrap() error { return ErrNotInstalled }

// maxRootsShown is how many roots a message names before it counts the
// rest: every host's roots are well over a hundred folders, which made
// one unreadable line.
const maxRootsShown = 4

// rootsLooked words the roots a search read for a message: the first
// few and how many more (those that exist first, as the ones a user
// would look at).
func rootsLooked(dirs []string) string {
	if len(dirs) <= maxRootsShown {
		return strings.Join(dirs, ", ")
	}
	// Each directory is looked at once, not at every comparison.
	var sorted, absent []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			sorted = append(sorted, d)
		} else {
			absent = append(absent, d)
		}
	}
	sorted = append(sorted, absent...)
	return fmt.Sprintf("%d roots: %s and %d more", len(dirs), strings.Join(sorted[:maxRootsShown], ", "), len(dirs)-maxRootsShown)
}

// LockedError says which process holds the root.
type LockedError struct {
	Root string
	PID  int
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is locked by another skillpm (pid %d); wait for it to finish, or stop it", e.Root, e.PID)
	}
	return fmt.Sprintf("%s is locked by another skillpm; wait for it to finish", e.Root)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// ReceiptError names the file and the record of an unsafe receipt or
// journal entry.
type ReceiptError struct {
	// File is the receipts or journal file.
	File string
	// Record is the record's position in the file, from 1, and Name its
	// name as written.
	Record int
	Name   string
	// Reason says what is wrong with it.
	Reason string
}

func (e *ReceiptError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("%s: %s (%q); nothing was changed in the root: move the file away", e.File, e.Reason, e.Name)
	}
	return fmt.Sprintf("%s: record %d (%q): %s; nothing was changed in the root: delete the record, or move the file away and reinstall", e.File, e.Record, e.Name, e.Reason)
}

// Unwrap makes errors.Is(err, ErrUnsafeReceipt) true.
func (e *ReceiptError) Unwrap() error { return ErrUnsafeReceipt }

// GaiaRefusedError names a skill GAIA's loader would refuse, the root
// it was to be installed in, and each refusal at its line of SKILL.md.
type GaiaRefusedError struct {
	// Root is the GAIA root; Name and Version the skill.
	Root, Name, Version string
	// Refusals are skill.GaiaRefusals of the SKILL.md that was staged.
	Refusals skill.Diagnostics
}

func (e *GaiaRefusedError) Error() string {
	return refusedMessage(e.Name, e.Version, "GAIA", e.Root, e.Refusals)
}

// refusedMessage says that host would not load name@version, so it was
// not installed in root, with each refusal at its line and the first's
// hint.
func refusedMessage(name, version, host, root string, refusals skill.Diagnostics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s: %s would not load it, so it is not installed in %s (nothing was written):", name, version, host, root)
	for _, d := range refusals {
		fmt.Fprintf(&b, "\n\t%s: %s", skill.Position(skill.SkillFile, d.Line, d.Column), d.Message)
	}
	if len(refusals) > 0 {
		fmt.Fprintf(&b, "\n\t%s", refusals[0].Hint)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrGaiaRefused) true.
func (e *GaiaRefusedError) Unwrap() error { return ErrGaiaRefused }

// HostRefusedError names a skill a host would leave out (its
// frontmatter needs a lenient YAML reader, and the host's is strict), the
// root it was to be installed in, and each refusal at its line of
// SKILL.md.
type HostRefusedError struct {
	// Host is the host's id; Root its root; Name and Version the skill.
	Host, Root, Name, Version string
	// Refusals are skill.StrictYAMLRefusals of the SKILL.md staged.
	Refusals skill.Diagnostics
}

func (e *HostRefusedError) Error() string {
	return refusedMessage(e.Name, e.Version, e.Host, e.Root, e.Refusals)
}

// Unwrap makes errors.Is(err, ErrHostRefused) true.
func (e *HostRefusedError) Unwrap() error { return ErrHostRefused }

// DriftError is a skill whose installed files differ from the locked,
// verified content although its receipt records them: receipts are a
// cache of the lock, never the authority on what a project holds.
type DriftError struct {
	// Root is the root's directory; Name and Version the locked skill.
	Root, Name, Version string
	// Files say how the installed files differ ("SKILL.md changed",
	// "run.sh added", "ref.md removed"); empty when the locked content
	// was not at hand to compare.
	Files []string
}

func (e *DriftError) Error() string {
	what := "its files differ"
	if len(e.Files) > 0 {
		what = "its files differ (" + strings.Join(e.Files, ", ") + ")"
	}
	return fmt.Sprintf("%s in %s: %s from %s@%s as locked and verified, though its receipt claims them: the files and the receipt were changed together; reinstall the locked content over them, or keep them elsewhere first", e.Name, e.Root, what, e.Name, e.Version)
}

// Unwrap makes errors.Is(err, ErrDrift) true.
func (e *DriftError) Unwrap() error { return ErrDrift }

// diffFiles says how the files of got differ from those of want, in
// path order.
func diffFiles(want, got []archive.File) []string {
	w := map[string]archive.File{}
	for _, f := range want {
		w[f.Path] = f
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range got {
		seen[f.Path] = true
		switch o, ok := w[f.Path]; {
		case !ok:
			out = append(out, f.Path+" added")
		case o != f:
			out = append(out, f.Path+" changed")
		}
	}
	for _, f := range want {
		if !seen[f.Path] {
			out = append(out, f.Path+" removed")
		}
	}
	sort.Strings(out)
	return out
}

// ErrPlaceTaken means a quarantined copy cannot be restored: the skill is
// installed there again.
var ErrPlaceTaken = errdef.New(errdef.Conflict, "the quarantined skill's place is taken")
