package archive

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// checkName reports why name (slash-separated, relative, no trailing slash)
// is not a safe, portable path, or "" when it is. The rules are the same
// for packing and unpacking so that every packed skill unpacks everywhere.
func checkName(name string) string {
	switch {
	case name == "":
		return "empty name"
	case !utf8.ValidString(name):
		return "name is not valid UTF-8"
	case name[0] == '/':
		return "absolute path"
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return "control character in name"
		case r == '\\':
			return "backslash in name"
		case r == ':':
			return "colon in name (drive letter or NTFS stream)"
		case strings.ContainsRune(`<>"|?*`, r):
			return "character " + string(r) + " is not allowed on Windows"
		}
	}
	for comp := range strings.SplitSeq(name, "/") {
		switch {
		case comp == "":
			return "empty path component"
		case comp == "." || comp == "..":
			return "path component " + comp
		case strings.HasSuffix(comp, ".") || strings.HasSuffix(comp, " "):
			// Windows drops trailing dots and spaces, merging "a." into "a".
			return "component ends in a dot or space"
		case isWindowsDevice(comp):
			return "Windows device name " + comp
		}
	}
	return ""
}

// isWindowsDevice reports names such as "con", "NUL.txt" or "com1.md" that
// Windows opens as devices whatever the extension.
func isWindowsDevice(comp string) bool {
	base, _, _ := strings.Cut(comp, ".")
	base = strings.TrimRight(base, " ")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 {
		return false
	}
	// COM0-9 and LPT0-9, and the superscript digits Windows also reserves
	// (COM¹, LPT³: Win32 file naming rules).
	p, n := strings.ToUpper(base[:3]), base[3:]
	if p != "COM" && p != "LPT" {
		return false
	}
	return len(n) == 1 && n[0] >= '0' && n[0] <= '9' || n == "¹" || n == "²" || n == "³"
}

// seenPath is what a tracker remembers about one path.
type seenPath struct {
	name     string // exact name, to tell duplicates from case collisions
	dir      bool
	explicit bool // false for a directory only implied by a deeper path
}

// tracker applies the per-tree checks shared by Pack and Unpack: name
// safety, Limits, duplicates, case and normalisation collisions, and paths
// below files. Memory is bounded by MaxEntries*MaxPathBytes.
type tracker struct {
	lim     Limits
	caser   cases.Caser
	seen    map[string]seenPath // by fold key
	entries int
	total   int64
}

func newTracker(lim Limits) *tracker {
	return &tracker{lim: lim, caser: cases.Fold(), seen: make(map[string]seenPath)}
}

// key folds case and Unicode normalisation the way the strictest common
// file systems (APFS, NTFS) may, and more: a false collision only refuses
// an odd skill, a missed one lets files overwrite each other.
func (t *tracker) key(name string) string {
	return t.caser.String(norm.NFC.String(name))
}

// add records entry name (already stripped of a trailing slash) and returns
// the parent directories it implies that were not seen before, shallowest
// first, and whether name itself is a directory that an earlier path had
// already implied. entry is the name to report in errors.
func (t *tracker) add(entry, name string, dir bool, size int64) (implied []string, existed bool, err error) {
	if why := checkName(name); why != "" {
		return nil, false, entryErr(entry, ErrUnsafePath, "%s", why)
	}
	if len(name) > t.lim.MaxPathBytes {
		return nil, false, entryErr(entry, ErrLimit, "path is %d bytes, limit %d", len(name), t.lim.MaxPathBytes)
	}
	if d := strings.Count(name, "/") + 1; d > t.lim.MaxDepth {
		return nil, false, entryErr(entry, ErrLimit, "path depth %d, limit %d", d, t.lim.MaxDepth)
	}
	if !dir {
		if size > t.lim.MaxFileBytes {
			return nil, false, entryErr(entry, ErrLimit, "file is %d bytes, limit %d", size, t.lim.MaxFileBytes)
		}
		if t.total+size > t.lim.MaxTotalBytes {
			return nil, false, entryErr(entry, ErrLimit, "total size would exceed %d bytes", t.lim.MaxTotalBytes)
		}
	}

	for i := 0; i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		parent := name[:i]
		k := t.key(parent)
		s, ok := t.seen[k]
		switch {
		case !ok:
			implied = append(implied, parent)
		case s.name != parent:
			return nil, false, entryErr(entry, ErrCaseCollision, "directory %q vs earlier %q", parent, s.name)
		case !s.dir:
			return nil, false, entryErr(entry, ErrPathConflict, "%q is a file", parent)
		}
	}

	k := t.key(name)
	if s, ok := t.seen[k]; ok {
		switch {
		case s.name != name:
			return nil, false, entryErr(entry, ErrCaseCollision, "earlier entry %q", s.name)
		case s.dir != dir:
			return nil, false, entryErr(entry, ErrPathConflict, "file and directory at the same path")
		case dir && !s.explicit:
			// A directory entry after a file inside it: foreign tars do this.
			existed = true
		default:
			return nil, false, entryErr(entry, ErrDuplicateEntry, "")
		}
	}
	added := len(implied)
	if !existed {
		added++
	}
	if t.entries+added > t.lim.MaxEntries {
		return nil, false, entryErr(entry, ErrLimit, "more than %d entries", t.lim.MaxEntries)
	}

	for _, p := range implied {
		t.seen[t.key(p)] = seenPath{name: p, dir: true}
	}
	t.seen[k] = seenPath{name: name, dir: dir, explicit: true}
	t.entries += added
	if !dir {
		t.total += size
	}
	return implied, existed, nil
}

// implicitlyRun says why name (slash-separated) must not be unpacked: a
// component is VCS metadata, which git, hg and svn (and every prompt or
// editor that calls them) act on with no trust prompt. direnv's .envrc
// and mise's config are left alone: both run nothing until the user
// allows the file. Compared case-insensitively, as the file systems that
// fold case would open it. "" means it is fine.
func implicitlyRun(name string) string {
	for _, c := range strings.Split(name, "/") {
		switch strings.ToLower(c) {
		case ".git", ".hg", ".svn", ".bzr", "_darcs", ".jj":
			return fmt.Sprintf("%s is version-control metadata: git, hg or svn run in the installed skill would read its config and hooks and run the commands they name; publishing leaves VCS folders out, so republish the skill with skillpm publish", c)
		}
	}
	return ""
}
