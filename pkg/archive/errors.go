package archive

import (
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// Sentinel errors. Every error returned by this package for a problem with
// an entry is an *EntryError wrapping one of these, so callers match with
// errors.Is and read the entry name with errors.As.
var (
	// ErrUnsafePath reports an entry name that could escape the destination
	// or would be read differently by some operating system: absolute paths,
	// ".." or "." components, empty components, backslashes, drive letters
	// and other characters Windows refuses, control characters (NUL
	// included), invalid UTF-8, and Windows device names such as "aux".
	ErrUnsafePath = errdef.New(errdef.Validation, "unsafe path")

	// ErrSecretFile reports a file that usually holds secrets in a tree
	// being packed: an environment file (.env, .env.local, …), a
	// credential or history file (.npmrc, .netrc, id_ed25519,
	// .bash_history, credentials.json, .aws/credentials, …) or a .pem or
	// .key file holding a private key. A published skill is public.
	// Exclude it with .skillignore (or .gitignore) to pack the rest.
	ErrSecretFile = errdef.New(errdef.Validation, "files that usually hold secrets are not packed")

	// ErrLinkEntry reports a symbolic or hard link. A skill holds regular
	// files and directories only.
	ErrLinkEntry = errdef.New(errdef.Validation, "links are not allowed")

	// ErrSpecialFile reports a device, FIFO, socket, sparse or otherwise
	// unsupported entry type.
	ErrSpecialFile = errdef.New(errdef.Validation, "only regular files and directories are allowed")

	// ErrDuplicateEntry reports a second entry with exactly the same path.
	ErrDuplicateEntry = errdef.New(errdef.Validation, "duplicate entry")

	// ErrCaseCollision reports two paths that differ only in letter case or
	// Unicode normalisation, which would overwrite each other on macOS and
	// Windows.
	ErrCaseCollision = errdef.New(errdef.Validation, "paths differ only in case or Unicode normalisation")

	// ErrPathConflict reports an entry below a path that is a file, or a file
	// where a directory already is.
	ErrPathConflict = errdef.New(errdef.Validation, "path conflicts with an earlier entry")

	// ErrLimit reports an archive or tree that exceeds a bound of [Limits]:
	// entry count, file or total size, path length, depth, stream size or
	// compression ratio.
	ErrLimit = errdef.New(errdef.Validation, "limit exceeded")

	// ErrImplicitExec reports an entry that a tool would act on just
	// because it is there, with no trust prompt: VCS metadata (.git, .hg,
	// .svn, .bzr, _darcs, .jj, anywhere, as a folder or a file), whose
	// config runs commands (core.fsmonitor, hooks) on a plain "git status"
	// from a shell prompt or an editor. Publishing never packs VCS
	// folders, so a layer holding one was made by hand.
	ErrImplicitExec = errdef.New(errdef.Validation, "file that tools run implicitly")

	// ErrCorrupt reports a stream that is not a well-formed gzip'd tar.
	ErrCorrupt = errdef.New(errdef.Validation, "corrupt archive")

	// ErrDestExists reports that the destination of [Unpack] already exists;
	// Unpack never merges into or replaces an existing path.
	ErrDestExists = errdef.New(errdef.Conflict, "destination already exists")

	// ErrChanged reports a file that changed while it was being packed.
	ErrChanged = errdef.New(errdef.Conflict, "file changed while packing")

	// ErrInvalidOptions reports options that fail their own validation.
	ErrInvalidOptions = errdef.New(errdef.Usage, "invalid options")
)

// EntryError ties an error to the archive entry or tree path that caused it.
type EntryError struct {
	// Entry is the entry name as found in the archive, or the slash-separated
	// path relative to the skill directory when packing or hashing.
	Entry string
	// Err is the cause; it wraps one of the sentinel errors above.
	Err error
}

// Error implements error.
func (e *EntryError) Error() string {
	return fmt.Sprintf("archive: %q: %v", e.Entry, e.Err)
}

// Unwrap returns the cause so errors.Is sees the sentinel.
func (e *EntryError) Unwrap() error { return e.Err }

// Class is the class of Err, and errdef.Validation when Err has none (an
// I/O error on an entry is still about that entry).
func (e *EntryError) Class() errdef.Class {
	if c := errdef.ClassOf(e.Err); c != errdef.None {
		return c
	}
	return errdef.Validation
}

func entryErr(entry string, sentinel error, format string, args ...any) error {
	if format == "" {
		return &EntryError{Entry: entry, Err: sentinel}
	}
	return &EntryError{Entry: entry, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}
