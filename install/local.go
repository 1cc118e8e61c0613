package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/tiers"
)

// Local is a skill to install from a local directory.
type Local struct {
	// Dir is the directory, absolute; receipts record it as LocalPath
	// unless Origin is set.
	Dir string
	// Origin, when set, is where Dir was exported from: a git reference
	// at its commit (git+https://host/o/r@COMMIT#path). Receipts record it
	// as LocalPath and the trust policy judges it under that name, since
	// Dir is a temporary copy.
	Origin string
	// GitRef, when set, is the git reference as asked for (a branch, tag
	// or range, not the commit), credentials removed. Receipts record it
	// so that update can move the skill to that reference's newest commit.
	GitRef string
	// Repository, when set, is the canonical repository the trust policy
	// judges the skill in, instead of Origin (for git, the repository
	// without revision or folder: gitsource.Ref.TrustRepository), so that
	// a policy's scopes can name it.
	Repository string
	// Signers are identities verified over the source the skill was built
	// from (the key of a git commit's checked SSH signature); the trust
	// policy judges the skill by them as it judges a registry signer.
	Signers []sign.Identity
	// Artifact is the directory built with registry.Build: the same
	// reproducible layer and manifest digest publishing would give, so an
	// identical signed published copy is recognised by its digest.
	Artifact *registry.Artifact
}

// where is what receipts and the trust policy call the skill's origin.
func (l *Local) where() string {
	if l.Origin != "" {
		return l.Origin
	}
	return l.Dir
}

func (l *Local) name() string    { return l.Artifact.Skill.Name }
func (l *Local) version() string { return l.Artifact.Skill.Version }

// unpack stages the packed layer into dest with the safe unpacker, as a
// pull would.
func (l *Local) unpack(ctx context.Context, dest string) (*registry.PullResult, error) {
	sum, err := archive.Unpack(ctx, bytes.NewReader(l.Artifact.Layer), dest, archive.Limits{})
	if err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", l.where(), err)
	}
	return &registry.PullResult{Dir: dest, Summary: sum, TreeVerified: sum.TreeHash == l.Artifact.Pack.TreeHash}, nil
}

// withLocal returns cat with the local skills in it (each as the only
// version of its name in the default source) and a copy of m that asks
// for each at its exact version.
// CatalogWith returns cat with the skills built from local directories
// (or git references) added, and m with each local skill's name required,
// for resolving a lock without installing: the same view an install with
// Options.Local resolves against.
func CatalogWith(cat resolve.Catalog, m *resolve.Manifest, locals []Local) (resolve.Catalog, *resolve.Manifest, error) {
	return withLocal(cat, m, locals)
}

func withLocal(cat resolve.Catalog, m *resolve.Manifest, locals []Local) (resolve.Catalog, *resolve.Manifest, error) {
	lc := &localCatalog{Catalog: cat, skills: map[string]*Local{}}
	mm := *m
	mm.Skills = slices.Clone(m.Skills)
	for i := range locals {
		l := &locals[i]
		if _, dup := lc.skills[l.name()]; dup {
			return nil, nil, fmt.Errorf("two local directories are the skill %s", l.name())
		}
		mm.Skills = slices.DeleteFunc(mm.Skills, func(r resolve.Requirement) bool { return r.Name == l.name() })
		lc.skills[l.name()] = l
		mm.Skills = append(mm.Skills, resolve.Requirement{Name: l.name(), Range: l.version()})
	}
	sort.Slice(mm.Skills, func(i, j int) bool { return mm.Skills[i].Name < mm.Skills[j].Name })
	return lc, &mm, nil
}

// localCatalog overlays local skills on a catalog. A local skill's name
// is a bare name (the default source), so it replaces the published
// versions of that name for this resolution only.
type localCatalog struct {
	resolve.Catalog
	skills map[string]*Local
}

// Versions returns the local skill's version, else the catalog's.
func (c *localCatalog) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	if l, ok := c.skills[name]; ok {
		v, err := semver.StrictNewVersion(l.version())
		if err != nil {
			return nil, fmt.Errorf("%s: version %q: %w", l.where(), l.version(), err)
		}
		return []*semver.Version{v}, nil
	}
	return c.Catalog.Versions(ctx, name)
}

// Dependencies returns what the local skill's SKILL.md requires, named
// as the published manifest would name them.
func (c *localCatalog) Dependencies(ctx context.Context, name string, v *semver.Version) (map[string]string, error) {
	l, ok := c.skills[name]
	if !ok {
		return c.Catalog.Dependencies(ctx, name, v)
	}
	ns := c.Namespace()
	out := map[string]string{}
	for _, d := range l.Artifact.Skill.Dependencies() {
		q, err := ns.Qualify(name, d.Name)
		if err != nil {
			q = d.Name
		}
		if prev, ok := out[q]; ok && prev != d.Range {
			out[q] = prev + ", " + d.Range
			continue
		}
		out[q] = d.Range
	}
	return out, nil
}

// Describe gives the local build's digest and tree.
func (c *localCatalog) Describe(ctx context.Context, name string, v *semver.Version) (resolve.Artifact, error) {
	if l, ok := c.skills[name]; ok {
		return resolve.Artifact{Digest: l.Artifact.Descriptor.Digest.String(), Tree: l.Artifact.Pack.TreeHash, Git: l.Origin}, nil
	}
	return c.Catalog.Describe(ctx, name, v)
}

// localNamed returns the local skill a lock entry is, or nil.
func localNamed(locals []Local, ns resolve.Namespace, ls resolve.LockedSkill) *Local {
	for i := range locals {
		l := &locals[i]
		if l.name() == ls.Name && ns.KeyOf(ls.Source) == ls.Name && l.Artifact.Descriptor.Digest.String() == ls.Digest {
			return l
		}
	}
	return nil
}

// prepareLocal plans a skill from a local directory. It is experimental
// unless the default source publishes the same version with the same
// manifest digest, whose signatures then count: the bytes are identical.
func prepareLocal(ctx context.Context, c *registry.Client, ls resolve.LockedSkill, l *Local, opts Options) (*Planned, error) {
	a := l.Artifact
	p := &Planned{Lock: ls, Permissions: a.Skill.PermissionStrings(), Claimed: a.Skill.Claim(), local: l}
	if repo, err := OpenLocked(c, ls); err == nil {
		m, err := repo.Get(ctx, source.Selector{Kind: source.SelectDigest, Raw: ls.Digest, Digest: digest.Digest(ls.Digest)}, true)
		if err == nil && m.Metadata.Name == ls.Name && m.Metadata.Version == ls.Version {
			opts.progress(Event{Stage: StageVerifying, Skill: ls.Name + "@" + ls.Version})
			v, err := policycheck.VerifySkill(ctx, repo, m, policycheck.VerifyOptions{Trust: opts.Trust, Policy: opts.Policy})
			// The content cache serves a manifest by digest whichever
			// repository asks, so a source that never held this skill
			// answers only here: then there is no published copy.
			if err != nil && !errors.Is(err, registry.ErrNotFound) {
				return nil, fmt.Errorf("%s@%s (published copy of %s): verifying signatures: %w", ls.Name, ls.Version, l.where(), err)
			}
			if err == nil && len(v.Signers) > 0 {
				p.Verification, p.manifest, p.repo = v, m, repo
				return p, nil
			}
		}
	}
	// No signed copy: the policy sees the source's signers (none for a
	// directory), whatever it trusts.
	scope, repo := "local:"+strings.TrimPrefix(l.Dir, "/"), "local:"+l.Dir
	if l.Origin != "" {
		scope, repo = l.Origin, l.Origin
	}
	if l.Repository != "" {
		scope = l.Repository
	}
	d := tiers.Evaluate(opts.Policy, scope, l.Signers, p.Claimed, tiers.EvalOptions{})
	p.Verification = &policycheck.Verification{SignatureVerification: registry.SignatureVerification{Repository: repo, Manifest: a.Descriptor, Signers: l.Signers}, Decision: d}
	return p, nil
}
