package install

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/pkg/skill"
)

// Listed is one skill found in a discovery root.
type Listed struct {
	Root    Root   `json:"root"`
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	Version string `json:"version,omitempty"`
	// Tier is the effective tier recorded at install; for a skill skillpm
	// did not install it is the tier the skill claims, marked unmanaged.
	Tier    skill.Tier `json:"tier"`
	Source  string     `json:"source,omitempty"`
	Managed bool       `json:"managed"`
	// ShadowedBy is the directory of the copy that wins, when another root
	// of the same host has a skill of the same name before this one.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Edited is true when a managed skill's files differ from its receipt.
	Edited bool `json:"edited,omitempty"`
	// Drift says how a managed copy in a project root differs from the
	// project's lock (AgainstLock); its Tier is then the lock's.
	Drift string `json:"drift,omitempty"`
	// Invalid is true when the skill does not load even leniently.
	Invalid bool `json:"invalid,omitempty"`
	// Ignored says why the host does not load this folder at all (a
	// lower-case skill.md, a symlink the host does not follow).
	Ignored string `json:"ignored,omitempty"`
	// Link is the target when the folder is a symlink.
	Link string `json:"link,omitempty"`
	// Origin says where an unmanaged skill came from when another tool
	// recorded it (see ForeignOrigin).
	Origin string `json:"origin,omitempty"`
	// ConflictsWith is the directory of another copy of the same name when
	// the host keeps one copy but not always the same one (OpenCode).
	ConflictsWith string `json:"conflictsWith,omitempty"`
	// Mode is how skillpm placed a managed skill: copy or link.
	Mode string `json:"mode,omitempty"`
	// LinkedFrom are the links skillpm made to this copy.
	LinkedFrom []string `json:"linkedFrom,omitempty"`
	// ReadBy are the hosts its receipt says load this copy.
	ReadBy []string `json:"readBy,omitempty"`
	// Pending says the skill is part of a transaction a crash interrupted
	// ("install" or "remove"); its files and receipt may disagree until
	// the next skillpm command on the root completes it.
	Pending string `json:"pending,omitempty"`
}

// List returns the skills in roots as the built-in hosts table describes
// their hosts; see ListWith.
func List(ctx context.Context, roots []Root) ([]Listed, error) {
	return ListWith(ctx, roots, nil)
}

// ListWith returns the skills in roots, in the order given (a host's
// precedence order, see SearchRoots), as each root's host itself loads
// them (t describes the hosts; nil is the built-in table): a folder
// without an exact SKILL.md, or a symlink the host does not follow, is
// listed as ignored; a name found again is shadowed by the first copy for
// a first-wins host, listed as a conflict for a host whose choice is not
// fixed, and left alone for a host that offers every copy. Roots that do
// not exist are skipped.
func ListWith(ctx context.Context, roots []Root, t *hosts.Table) ([]Listed, error) {
	if t == nil {
		t = hosts.Builtin()
	}
	var out []Listed
	winner := map[string]string{} // host/name -> dir of the winning copy
	for _, r := range roots {
		entries, err := os.ReadDir(r.Dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, err
		}
		rule, symlinks := hosts.FirstWins, hosts.SymlinksFollowed
		if h, err := t.Get(string(r.Host)); err == nil {
			rule, symlinks = h.Duplicates, h.Symlinks
		}
		pend, err := PendingIn(r.Dir)
		if err != nil {
			return nil, err
		}
		pending := map[string]string{}
		if pend != nil {
			for _, n := range pend.Install {
				pending[n] = "install"
			}
			for _, n := range pend.Remove {
				pending[n] = "remove"
			}
		}
		listed := map[string]bool{}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			dir := filepath.Join(r.Dir, e.Name())
			l := Listed{Root: r, Name: e.Name(), Dir: dir}
			if e.Type()&os.ModeSymlink != 0 {
				fi, err := os.Stat(dir)
				if err != nil || !fi.IsDir() {
					continue // a dangling link or a link to a file: no skill
				}
				l.Link, _ = os.Readlink(dir)
				if symlinks == hosts.SymlinksIgnored {
					l.Ignored = "a symlink, which " + string(r.Host) + " does not follow"
				}
			} else if !e.IsDir() || e.Name() == stateDir {
				continue
			}
			s, ds := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
			if s == nil {
				if ds.Has(skill.CodeNoSkillFile) {
					continue // not a skill: some other folder in the root
				}
				l.Invalid = true
			} else {
				l.Version = s.Version
				l.Tier = s.Tier()
				l.Invalid = ds.HasErrors()
			}
			if ds.Has(skill.CodeLowercaseSkillFile) && l.Ignored == "" {
				l.Ignored = "the file is not named " + hosts.SkillFile + ", the only name hosts load"
			}
			rr, ok := rec.Get(e.Name())
			if !ok {
				l.Origin = ForeignOrigin(r.Dir, e.Name())
			}
			if ok {
				l.Managed = true
				l.Version, l.Tier, l.Source = rr.Version, rr.Tier, rr.Source
				l.Mode, l.LinkedFrom, l.ReadBy = rr.Mode, liveLinks(rr, dir), rr.ReadBy
				if l.Mode == "" {
					l.Mode = ModeCopy
				}
				if rr.Source == "" {
					l.Source = rr.LocalPath
				}
				if sum, err := treeOf(ctx, dir); err == nil && rr.Tree != "" && sum.TreeHash != rr.Tree {
					l.Edited = true
				}
			}
			if kind, ok := pending[l.Name]; ok {
				l.Pending, l.Edited, l.Managed = kind, false, true
			}
			listed[l.Name] = true
			if l.Ignored == "" {
				key := string(r.Host) + "/" + l.Name
				w, ok := winner[key]
				switch {
				case !ok:
					winner[key] = dir
				case sameCopy(w, dir):
					// A link to the copy already listed (install --link,
					// the skills CLI): one copy, whichever path the host
					// takes it by; not a rival.
				case rule == hosts.FirstWins:
					l.ShadowedBy = w
				case rule == hosts.Unordered:
					l.ConflictsWith = w
				}
			}
			out = append(out, l)
		}
		// A pending skill moved aside (or not yet in place) is listed too:
		// it is not gone, its transaction is unfinished.
		for _, n := range slices.Sorted(maps.Keys(pending)) {
			if listed[n] {
				continue
			}
			l := Listed{Root: r, Name: n, Dir: filepath.Join(r.Dir, n), Managed: true, Pending: pending[n]}
			if rr, ok := rec.Get(n); ok {
				l.Version, l.Tier, l.Source = rr.Version, rr.Tier, rr.Source
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// sameCopy reports whether two skill folders are one copy reached by two
// paths (one of them, or both, through symlinks).
func sameCopy(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
