package install

import (
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
)

// Change kinds.
const (
	// ChangeAdd: the skill is not installed in the root yet.
	ChangeAdd = "add"
	// ChangeUpgrade: a higher version replaces the installed one.
	ChangeUpgrade = "upgrade"
	// ChangeDowngrade: a lower version replaces the installed one.
	ChangeDowngrade = "downgrade"
	// ChangeReplace: the same version with another digest (a republish or
	// a local build) replaces the installed one.
	ChangeReplace = "replace"
)

// Change is what a plan does to one skill in one root; skills whose
// digest is unchanged are not changes.
type Change struct {
	Root string `json:"root"`
	Name string `json:"name"`
	Kind string `json:"kind"`
	// From and FromTier are the installed version and tier, "" for an add.
	From     string     `json:"from,omitempty"`
	FromTier skill.Tier `json:"fromTier,omitempty"`
	To       string     `json:"to"`
	ToTier   skill.Tier `json:"toTier"`
	// NewPermissions are the permissions declared now and not when the
	// installed version was (all of them for an add).
	NewPermissions []string `json:"newPermissions,omitempty"`
	// SignersChanged is true when none of the pinned signers signed the
	// new version (refused unless Options.AllowSignerChange).
	SignersChanged bool `json:"signersChanged,omitempty"`
}

// diff works out the changes of the plan in each of the job's roots.
func (j *job) diff() []Change {
	out := []Change{}
	for i, r := range j.roots {
		for _, p := range j.plan {
			old, ok := j.receipts[i].Get(p.Lock.Name)
			if ok && sameBuild(old, p) {
				continue
			}
			c := Change{Root: r.Dir, Name: p.Lock.Name, Kind: ChangeAdd, To: p.Lock.Version, ToTier: p.Lock.Tier}
			if ok {
				c.From, c.FromTier, c.Kind = old.Version, old.Tier, versionChange(old.Version, p.Lock.Version)
				c.SignersChanged = tiers.CheckSigners(old.Signers, p.Verification.Signers, false) != nil
			}
			for _, perm := range p.Permissions {
				if !ok || !slices.ContainsFunc(old.Grants, func(g Grant) bool { return g.Permission == perm }) {
					c.NewPermissions = append(c.NewPermissions, perm)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

func versionChange(from, to string) string {
	a, errA := semver.StrictNewVersion(from)
	b, errB := semver.StrictNewVersion(to)
	switch {
	case errA != nil || errB != nil || a.Equal(b):
		return ChangeReplace
	case b.LessThan(a):
		return ChangeDowngrade
	}
	return ChangeUpgrade
}

// checkPins refuses, before anything is written, a skill signed by none
// of the identities its receipts or the previous lock pin (unless
// AllowSignerChange) and, for an update, a downgrade (unless
// AllowDowngrade).
func (j *job) checkPins(opts Options, update bool) error {
	if update && !opts.AllowDowngrade {
		for _, c := range j.changes {
			if c.Kind == ChangeDowngrade {
				return fmt.Errorf("%w: %s would go from %s down to %s in %s (the newer version is no longer allowed or available)",
					ErrDowngrade, c.Name, c.From, c.To, c.Root)
			}
		}
	}
	if err := j.checkRepublished(opts); err != nil {
		return err
	}
	for _, p := range j.plan {
		var pinned [][]sign.Identity
		if ls := j.prev.Get(p.Lock.Name); ls != nil && len(ls.Signers) > 0 && ls.Source == p.Lock.Source {
			ids := make([]sign.Identity, len(ls.Signers))
			for i, s := range ls.Signers {
				ids[i] = sign.Identity(s)
			}
			pinned = append(pinned, ids)
		}
		for _, rec := range j.receipts {
			if old, ok := rec.Get(p.Lock.Name); ok {
				pinned = append(pinned, old.Signers)
			}
		}
		for _, ids := range pinned {
			if err := tiers.CheckSigners(ids, p.Verification.Signers, opts.AllowSignerChange); err != nil {
				return fmt.Errorf("%s@%s: %w", p.Lock.Name, p.Lock.Version, err)
			}
		}
	}
	return nil
}

// carried returns, per skill, the permissions an earlier install of it
// consented to by flag, --yes or prompt in every root, with what
// consented. Consent carries over only while the tier does not fall: a
// community grant says nothing about an experimental version.
func (j *job) carried() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, p := range j.plan {
		var set map[string]string
		for i := range j.roots {
			old, ok := j.receipts[i].Get(p.Lock.Name)
			if !ok || p.Lock.Tier.Compare(old.Tier) < 0 {
				set = nil
				break
			}
			mine := map[string]string{}
			for _, g := range old.Grants {
				if g.By != string(tiers.GrantedByTier) {
					mine[g.Permission] = g.By
				}
			}
			if set == nil {
				set = mine
				continue
			}
			for k := range set {
				if _, ok := mine[k]; !ok {
					delete(set, k)
				}
			}
		}
		if len(set) > 0 {
			out[p.Lock.Name] = set
		}
	}
	return out
}

// sameBuild reports whether old, a root's receipt, is p as planned: the
// same manifest digest, or, for a skill built from a folder or git
// (p.local), the same version and files. A local build's digest also
// covers what the build was annotated with (the folder's VCS revision,
// which a commit elsewhere in the repository moves), so the same files
// built again are the same skill, kept rather than installed again.
func sameBuild(old Record, p *Planned) bool {
	if old.Digest == p.Lock.Digest {
		return true
	}
	return p.local != nil && old.Version == p.Lock.Version && old.Tree != "" && old.Tree == p.local.Artifact.Pack.TreeHash
}

// kept returns the skills every root already holds at the planned digest
// and tier, with the grants their receipts record.
func (j *job) kept() map[string][]Grant {
	out := map[string][]Grant{}
	for _, p := range j.plan {
		var grants []Grant
		all := len(j.roots) > 0
		for i := range j.roots {
			old, ok := j.receipts[i].Get(p.Lock.Name)
			if !ok || !sameBuild(old, p) || old.Tier != p.Lock.Tier {
				all = false
				break
			}
			grants = old.Grants
		}
		if all {
			out[p.Lock.Name] = grants
		}
	}
	return out
}

// checkRepublished refuses, unless AllowRepublished, a skill whose
// version is the one locked in prev or installed in a root from the same
// source, but whose manifest digest is not: the version's tag was moved
// to other content.
func (j *job) checkRepublished(opts Options) error {
	if opts.AllowRepublished {
		return nil
	}
	for _, p := range j.plan {
		if p.local != nil {
			continue
		}
		type known struct{ where, digest string }
		var seen []known
		if ls := j.prev.Get(p.Lock.Name); ls != nil && ls.Source == p.Lock.Source && ls.Version == p.Lock.Version && ls.Digest != "" {
			seen = append(seen, known{"the lock", ls.Digest})
		}
		for i, rec := range j.receipts {
			if old, ok := rec.Get(p.Lock.Name); ok && old.Source == p.Lock.Source && old.Version == p.Lock.Version && old.Digest != "" {
				seen = append(seen, known{j.roots[i].Dir, old.Digest})
			}
		}
		for _, k := range seen {
			if k.digest != p.Lock.Digest {
				return fmt.Errorf("%w: %s@%s was republished: %s has %s, %s now serves %s; check with its publisher before accepting the new content",
					ErrRepublished, p.Lock.Name, p.Lock.Version, k.where, k.digest, p.Lock.Source, p.Lock.Digest)
			}
		}
	}
	return nil
}

// checkLockDowngrade refuses, unless AllowDowngrade, an install that
// would put a lower version than prev's (the project's lock, or what the
// first root holds) when nothing asked for it: the range asked for still
// admits prev's version, or the skill is only a dependency. That happens
// when the newer version vanished from the registry.
func (j *job) checkLockDowngrade(opts Options) error {
	if opts.AllowDowngrade || j.prev == nil {
		return nil
	}
	ranges := map[string]string{}
	if j.manifest != nil {
		for _, r := range j.manifest.Skills {
			if key, err := j.ns.Key(r.Name); err == nil {
				ranges[key] = r.Range
			}
		}
	}
	for _, p := range j.plan {
		old := j.prev.Get(p.Lock.Name)
		if old == nil || old.Source != p.Lock.Source || versionChange(old.Version, p.Lock.Version) != ChangeDowngrade {
			continue
		}
		if rng, ok := ranges[p.Lock.Name]; ok && !admits(rng, old.Version) {
			continue // the range asked for excludes the locked version
		}
		return fmt.Errorf("%w: %s is locked at %s but the newest version the registry offers for it is %s (was %s withdrawn?)",
			ErrDowngrade, p.Lock.Name, old.Version, p.Lock.Version, old.Version)
	}
	return nil
}

// admits reports whether the range rng admits version v.
func admits(rng, v string) bool {
	c, err := semver.NewConstraint(rng)
	if err != nil {
		return false
	}
	sv, err := semver.StrictNewVersion(v)
	if err != nil {
		return false
	}
	return c.Check(sv)
}
