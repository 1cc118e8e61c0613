package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// AdoptOptions are the choices of Adopt.
type AdoptOptions struct {
	// LockWait bounds the wait for the root's lock; 0 is DefaultLockWait.
	LockWait time.Duration
	// Client, when set, is used to look for a published version of the
	// skill with exactly the folder's files, in Repository (the canonical
	// "SOURCE/NAME" of the configured source, resolve.Namespace.Repository),
	// judged by Policy with the signature material Trust.
	Client     *registry.Client
	Repository string
	Policy     *tiers.Policy
	Trust      sign.VerifyOptions
}

// Adoption is what an adoption recorded in one root: the root and the
// Adopted result there.
type Adoption struct {
	Root Root
	*Adopted
}

// Adopted is the receipt Adopt wrote and where the skill came from.
type Adopted struct {
	Record Record `json:"record"`
	Origin string `json:"origin,omitempty"`
	// Why says why no signed published version vouched for the files,
	// when none did (the receipt is then experimental).
	Why string `json:"why,omitempty"`
}

// Adopt takes a skill that is in root but was not installed by skillpm
// under management: it must load (lenient validation, an exact SKILL.md),
// and it is recorded with the tree hash of its files, computed under the
// root's lock. When opts.Client is set and a version published in
// opts.Repository unpacks to exactly that tree and its signatures verify
// under the trust policy, the receipt records that version, its digest,
// source, signers and the tier the signatures give; otherwise it is
// experimental (nothing vouches for files placed by hand or by another
// tool) and Adopted.Why says why. The match is decided from the layer
// pulled and unpacked, never from the manifest's annotations, which only
// let versions that cannot match be skipped. Later edits show as edited
// and remove/update treat it like any installed skill. A symlinked folder
// is refused: the tool that made the link owns its target.
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
		Tier: "experimental", Claimed: s.Claim(), Requested: "*", Mode: ModeCopy,
		InstalledAt: time.Now().UTC().Format(time.RFC3339)}
	why := "no source to compare with was given"
	if opts.Client != nil {
		var err error
		if why, err = matchPublished(ctx, root, name, s.Version, sum.TreeHash, &r, opts); err != nil {
			return nil, err
		}
	}
	tx, err := beginTxn(root)
	if err != nil {
		return nil, err
	}
	rec.Put(r)
	if err := tx.Commit(ctx, rec); err != nil {
		return nil, err
	}
	return &Adopted{Record: r, Origin: origin, Why: why}, nil
}

// matchPublished looks in opts.Repository for a version whose layer
// unpacks to tree, the declared version first, then the others newest
// first. Each candidate is pulled into a staging area of root (the bytes
// are checked against the manifest's layer digest as they unpack) and
// the tree of what unpacked is compared; a match whose signatures verify
// fills r with the version, digest, source, signers and effective tier.
// It returns why the skill stays experimental ("" when it does not); an
// error only for a failure of root's own disk.
func matchPublished(ctx context.Context, root, name, declared, tree string, r *Record, opts AdoptOptions) (string, error) {
	repo, err := OpenLocked(opts.Client, resolve.LockedSkill{Name: name, Source: opts.Repository})
	if err != nil {
		return fmt.Sprintf("%s cannot be opened: %v", opts.Repository, err), nil
	}
	vs, err := repo.Versions(ctx)
	if err != nil || len(vs) == 0 {
		if err == nil {
			err = registry.ErrNotFound
		}
		return fmt.Sprintf("%s publishes no version of %s (%v)", opts.Repository, name, err), nil
	}
	slices.SortStableFunc(vs, func(a, b *semver.Version) int {
		switch {
		case a.Original() == declared || a.String() == declared:
			return -1
		case b.Original() == declared || b.String() == declared:
			return 1
		}
		return b.Compare(a)
	})
	chk, err := beginTxn(root)
	if err != nil {
		return "", err
	}
	defer chk.Abort()
	tried := 0
	for i, v := range vs {
		m, err := repo.Metadata(ctx, v)
		if err != nil {
			continue
		}
		if m.Metadata.Tree != "" && m.Metadata.Tree != tree {
			continue // cannot match: not worth a download
		}
		tried++
		dest := filepath.Join(chk.dir("new"), fmt.Sprintf("%s-%d", name, i))
		pr, err := repo.Pull(ctx, m, dest, registry.PullOptions{})
		if err != nil {
			return fmt.Sprintf("%s@%s could not be fetched to compare: %v", opts.Repository, m.Metadata.Version, err), nil
		}
		if pr.Summary.TreeHash != tree {
			continue
		}
		ver, _, err := policycheck.VerifyWithAudits(ctx, repo, m, policycheck.VerifyOptions{Trust: opts.Trust, Policy: opts.Policy})
		if err != nil {
			return fmt.Sprintf("its files are %s@%s (%s), whose signatures do not verify: %v", opts.Repository, m.Metadata.Version, m.Descriptor.Digest, err), nil
		}
		if len(ver.Signers) == 0 {
			return fmt.Sprintf("its files are %s@%s (%s), which nobody the trust policy knows signed", opts.Repository, m.Metadata.Version, m.Descriptor.Digest), nil
		}
		r.Version, r.Digest, r.Source, r.LocalPath = m.Metadata.Version, m.Descriptor.Digest.String(), opts.Repository, ""
		r.Tier, r.Claimed = ver.Decision.Effective, m.Metadata.Tier
		r.Signers = append([]sign.Identity(nil), ver.Signers...)
		r.Requested = resolve.AnyRange // as install NAME records it
		return "", nil
	}
	if tried == 0 {
		return fmt.Sprintf("none of the %d versions %s publishes has these files", len(vs), opts.Repository), nil
	}
	return fmt.Sprintf("none of the %d versions %s publishes has these files (%d fetched and compared)", len(vs), opts.Repository, tried), nil
}
