package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
)

// AdoptOptions are the choices of Adopt.
type AdoptOptions struct {
	// LockWait bounds the wait for the root's lock; 0 is DefaultLockWait.
	LockWait time.Duration
}

// Adopted is the receipt Adopt wrote and where the skill came from.
type Adopted struct {
	Record Record `json:"record"`
	Origin string `json:"origin,omitempty"`
}

// Adopt takes a skill that is in root but was not installed by skillpm
// under management: it must load (lenient validation, an exact SKILL.md),
// and it is recorded as experimental with its current tree hash, since
// nothing vouches for files placed by hand or by another tool; later
// edits show as edited and remove/update treat it like any installed
// skill. A symlinked folder is refused: the tool that made the link owns
// its target.
func Adopt(ctx context.Context, root, name string, opts AdoptOptions) (*Adopted, error) {
	lock, rec, err := lockAndRead(ctx, root, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if _, ok := rec.Get(name); ok {
		return nil, fmt.Errorf("%s in %s is already managed by skillpm", name, root)
	}
	dir := filepath.Join(root, name)
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not in %s: %w", name, root, ErrNotInstalled)
	}
	origin := ForeignOrigin(root, name)
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s in %s is %s: adopt refuses a link, whose target another tool manages; install the skill with skillpm instead, replacing the link", name, root, origin)
	}
	s, ds := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
	if s == nil || ds.HasErrors() {
		return nil, fmt.Errorf("%s in %s does not load: %w", name, root, ds.Err())
	}
	if ds.Has(skill.CodeLowercaseSkillFile) {
		return nil, fmt.Errorf("%s in %s has no %s (no host loads it): rename its skill.md first", name, root, skill.SkillFile)
	}
	if s.Name != name {
		return nil, fmt.Errorf("%s in %s is named %q in its %s: rename the folder or the skill first", name, root, s.Name, skill.SkillFile)
	}
	sum, err := archive.TreeHashInstalled(ctx, dir)
	if err != nil {
		return nil, err
	}
	r := Record{Name: name, Version: s.Version, LocalPath: dir, Tree: sum.TreeHash,
		Tier: "experimental", Claimed: s.Tier(), Requested: "*",
		InstalledAt: time.Now().UTC().Format(time.RFC3339)}
	tx, err := beginTxn(root)
	if err != nil {
		return nil, err
	}
	rec.Put(r)
	if err := tx.Commit(ctx, rec); err != nil {
		return nil, err
	}
	return &Adopted{Record: r, Origin: origin}, nil
}
