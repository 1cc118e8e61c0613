package install

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
)

// rootStage is what one root gets from a job: the skills it already
// holds as planned, and the transaction staging the others.
type rootStage struct {
	unchanged []*Planned
	todo      []*Planned
	// tx is nil until something is staged, and again once committed.
	tx *txn
	// trees are the tree hashes of what this root gets where they differ
	// from the layer's (the GAIA host's SKILL.md carries the enforced
	// tier).
	trees map[string]string
}

// stageAll works out, from the receipts read under every root's lock
// (the lock is not held now: see unexpected), what each root needs,
// stages it there (a dry run stages into a temporary directory outside
// every root), and then decides each skill's permissions and tree hash
// from the files that land, refusing a manifest that disagrees with its
// own layer. The changes are worked out again from what was staged.
func (j *job) stageAll(ctx context.Context, opts Options) error {
	kept := j.kept()
	content := map[string]staged{}
	var union []*Planned
	var drifted []drift
	// A skill's copies in several roots are audited once: the others
	// are checked to be the same files (tree hash) as the one audited.
	audited := map[string]string{}
	for i, r := range j.roots {
		st := &rootStage{}
		j.stages = append(j.stages, st)
		rec := j.receipts[i]
		if r.Link != "" {
			if err := j.stageLinks(ctx, r, rec, st, opts); err != nil {
				return err
			}
			continue
		}
		for _, p := range j.plan {
			old, ok := rec.Get(p.Lock.Name)
			dir := filepath.Join(r.Dir, p.Lock.Name)
			// The copy must hold what the lock and the verified manifest
			// name, not what its receipt says: a project commits both.
			want := lockedTree(p)
			if r.Host == HostGaia || want == "" {
				want = old.Tree // the enforced tier is written into SKILL.md
			}
			if ok && sameBuild(old, p) && !old.IsLink() {
				sum, err := archive.TreeHashInstalled(ctx, dir)
				if err == nil && sum.TreeHash == want {
					st.unchanged = append(st.unchanged, p)
					continue
				}
				if err == nil && sum.TreeHash == old.Tree && !opts.Force {
					drifted = append(drifted, drift{root: r.Dir, p: p, dir: dir})
				}
			}
			// A link skillpm made holds no edits: a copy replaces it freely.
			if _, err := os.Stat(dir); err == nil && !opts.Force && !(ok && old.IsLink()) {
				if !ok {
					what := "placed there by hand or by another tool"
					if o := ForeignOrigin(r.Dir, p.Lock.Name); o != "" {
						what = o
					}
					return unexpected(ctx, r.Dir, rec, p.Lock.Name, opts, fmt.Errorf("%w: %s exists in %s but was not installed by skillpm (%s); replace it with this one, or keep it and take it under management (adopt)", ErrEdited, p.Lock.Name, r.Dir, what))
				}
				if sum, err := archive.TreeHashInstalled(ctx, dir); err != nil || sum.TreeHash != old.Tree {
					return unexpected(ctx, r.Dir, rec, p.Lock.Name, opts, fmt.Errorf("%s: %w: %s in %s differs from what skillpm installed; keep your changes elsewhere before overwriting them", r.Dir, ErrEdited, p.Lock.Name, r.Dir))
				}
			}
			st.todo = append(st.todo, p)
			if !containsPlanned(union, p) {
				union = append(union, p)
			}
		}
		if opts.DryRun || len(st.todo) == 0 {
			continue
		}
		// Staged and audited in this process's own staging area, without
		// the root's lock; the commit renames that very folder into place.
		tx, err := beginStage(r.Dir)
		if err != nil {
			return err
		}
		st.tx = tx
		got, err := stage(ctx, tx, st.todo, opts, audited)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Dir, err)
		}
		if r.Host == HostGaia {
			if st.trees, err = enforceTier(ctx, st.todo, got); err != nil {
				return fmt.Errorf("%s: %w", r.Dir, err)
			}
		}
		for name, s := range got {
			if first, ok := content[name]; ok && first.tree != s.tree {
				return fmt.Errorf("%s: %s unpacked to tree %s here and %s in another root", r.Dir, name, s.tree, first.tree)
			}
			if _, ok := content[name]; !ok {
				content[name] = s
			}
		}
	}
	if opts.DryRun && len(union) > 0 {
		// A dry run decides from the same bytes, unpacked where no root
		// sees them, and removed when the job ends.
		tmp, err := os.MkdirTemp("", "skillpm-dry-run-")
		if err != nil {
			return err
		}
		tx, err := beginTxn(tmp)
		if err != nil {
			os.RemoveAll(tmp)
			return err
		}
		j.dry = tx
		got, err := stage(ctx, tx, union, opts, nil)
		if err != nil {
			return err
		}
		content = got
	}
	// A copy whose receipt claims it but whose files are not the locked
	// ones is refused, naming the files, now that the verified content is
	// staged to compare with.
	if len(drifted) > 0 {
		// The first drifted copy is reported; fixing it shows the next.
		d := drifted[0]
		e := &DriftError{Root: d.root, Name: d.p.Lock.Name, Version: d.p.Lock.Version}
		if s, ok := content[d.p.Lock.Name]; ok {
			want, werr := archive.InstalledFiles(ctx, s.dir)
			got, gerr := archive.InstalledFiles(ctx, d.dir)
			if werr == nil && gerr == nil {
				e.Files = diffFiles(want, got)
			}
		}
		return e
	}
	for _, p := range j.plan {
		s, ok := content[p.Lock.Name]
		if !ok {
			if _, k := kept[p.Lock.Name]; k {
				continue // every root holds it as planned, with its consent
			}
			// Held unchanged by every root but judged again (its tier
			// moved): its installed files match the tree hash recorded
			// from its verified layer.
			var err error
			if s, err = loadInstalled(ctx, j, p); err != nil {
				return err
			}
		}
		// What ceilings and consent judge: the declared permissions and
		// those allowed-tools amounts to (hosts pre-approve those tools).
		p.Permissions = nil
		for _, perm := range s.skill.EffectivePermissions() {
			p.Permissions = append(p.Permissions, perm.String())
		}
		p.UnknownTools = skill.MapAllowedTools(s.skill.AllowedTools).Unknown
		p.Claimed = s.skill.Claim()
		if p.Lock.Tree == "" {
			// A manifest without a tree hash: record the one of the files
			// that land, so later edits are seen.
			p.Lock.Tree = s.tree
			if ls := j.lock.Get(p.Lock.Name); ls != nil {
				ls.Tree = s.tree
			}
		}
	}
	if err := j.hostsLoad(content, opts.Hosts); err != nil {
		return err
	}
	j.changes = j.diff()
	return nil
}

// hostsLoad refuses a skill to be written into a root whose host would
// not load it, judged from the SKILL.md staged (content, the bytes that
// land): GAIA's loader (skill.GaiaRefusals), or a host that reads the
// frontmatter as strict YAML (hosts.Host.StrictYAML) where a lenient load
// read a value as text. Installing it would put a skill where its host
// leaves it out, whatever skillpm's own grants allowed.
func (j *job) hostsLoad(content map[string]staged, t *hosts.Table) error {
	if t == nil {
		t = hosts.Builtin()
	}
	for i, r := range j.roots {
		if r.Link != "" {
			continue
		}
		var refusals func(*skill.Skill) skill.Diagnostics
		switch h, err := t.Get(string(r.Host)); {
		case r.Host == HostGaia:
			refusals = skill.GaiaRefusals
		case err == nil && h.StrictYAML:
			refusals = func(s *skill.Skill) skill.Diagnostics { return skill.StrictYAMLRefusals(s, h.Name) }
		default:
			continue
		}
		for _, p := range j.stages[i].todo {
			s, ok := content[p.Lock.Name]
			if !ok || s.skill == nil {
				continue
			}
			if ds := refusals(s.skill); len(ds) > 0 {
				if r.Host == HostGaia {
					return &GaiaRefusedError{Root: r.Dir, Name: p.Lock.Name, Version: p.Lock.Version, Refusals: ds}
				}
				return &HostRefusedError{Host: string(r.Host), Root: r.Dir, Name: p.Lock.Name, Version: p.Lock.Version, Refusals: ds}
			}
		}
	}
	return nil
}

// loadInstalled parses the copy of p a root already holds unchanged.
func loadInstalled(ctx context.Context, j *job, p *Planned) (staged, error) {
	for i, st := range j.stages {
		if !containsPlanned(st.unchanged, p) {
			continue
		}
		dir := filepath.Join(j.roots[i].Dir, p.Lock.Name)
		s, ds := skill.Load(ctx, dir, skill.Options{Mode: skill.Lenient})
		if s == nil {
			return staged{}, fmt.Errorf("%s@%s in %s does not load: %w", p.Lock.Name, p.Lock.Version, j.roots[i].Dir, ds.Err())
		}
		if j.roots[i].Host == HostGaia && p.manifest != nil {
			// Its SKILL.md carries the tier enforced at install, not the
			// claim (enforceTier); the rest must still agree.
			s.Gaia.SecurityTier = string(p.manifest.Metadata.Tier)
		}
		if err := checkContent(p, s); err != nil {
			return staged{}, err
		}
		old, _ := j.receipts[i].Get(p.Lock.Name)
		return staged{skill: s, tree: old.Tree, dir: dir}, nil
	}
	return staged{}, fmt.Errorf("%s@%s: no copy to judge (internal error)", p.Lock.Name, p.Lock.Version)
}

// checkContent refuses p when the index it was planned from (its
// manifest's annotations or config; a local build's own parse) disagrees
// with s, the SKILL.md of the files that land, or when that SKILL.md
// names another skill or version than the one resolved.
func checkContent(p *Planned, s *skill.Skill) error {
	var md registry.Metadata
	switch {
	case p.manifest != nil:
		md = p.manifest.Metadata
	case p.local != nil:
		md = registry.IndexOf(p.local.Artifact.Skill)
		if registry.DeclaresNoVersion(s.Version) {
			// The build gave a skill that declares none its version (a
			// version tag's, or a pseudo-version) from the same files.
			md.Version = s.Version
		}
	default:
		return nil
	}
	if err := registry.CheckContent(md, s); err != nil {
		return fmt.Errorf("%w: %w", tiers.ErrRefused, err)
	}
	return nil
}

// drift is a copy in root (at dir) whose receipt records its files,
// which are not those locked for p.
type drift struct {
	root, dir string
	p         *Planned
}

// lockedTree is the tree hash a copy of p must have to be what was
// locked and verified: the verified manifest's, a local build's, else
// the lock's ("" when none states one).
func lockedTree(p *Planned) string {
	switch {
	case p.manifest != nil && p.manifest.Metadata.Tree != "":
		return p.manifest.Metadata.Tree
	case p.local != nil:
		return p.local.Artifact.Pack.TreeHash
	}
	return p.Lock.Tree
}

func containsPlanned(ps []*Planned, p *Planned) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// abort discards whatever the job staged and did not commit.
func (j *job) abort() {
	for _, st := range j.stages {
		if st.tx != nil {
			st.tx.Abort()
			st.tx = nil
		}
	}
	if j.dry != nil {
		j.dry.Abort()
		os.RemoveAll(j.dry.root)
		j.dry = nil
	}
}

// enforceTier writes each staged skill's effective tier into its
// SKILL.md's metadata.gaia.security_tier, as GAIA's own installer does:
// GAIA shows that field, so it must say what skillpm enforced, not what
// the publisher claimed. It returns the tree hash of each rewritten copy,
// which its receipt records so that list does not call it edited. The
// parse that trust was decided from is of the layer's bytes, made before.
func enforceTier(ctx context.Context, todo []*Planned, got map[string]staged) (map[string]string, error) {
	trees := map[string]string{}
	for _, p := range todo {
		s, ok := got[p.Lock.Name]
		if !ok || s.skill == nil || s.skill.Tier() == p.Lock.Tier {
			continue
		}
		file := s.skill.File
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		out, err := skill.SetSecurityTier(data, p.Lock.Tier)
		if err != nil {
			return nil, fmt.Errorf("%s@%s: writing the enforced tier into SKILL.md: %w", p.Lock.Name, p.Lock.Version, err)
		}
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return nil, err
		}
		sum, err := archive.TreeHashInstalled(ctx, s.dir)
		if err != nil {
			return nil, err
		}
		trees[p.Lock.Name] = sum.TreeHash
	}
	return trees, nil
}

// stageLinks stages, for a link root, a symlink per skill to its folder
// in r.Link. The files are judged where the copy is staged (r.Link is a
// root of the same job); a link holds nothing to judge. An entry skillpm
// did not make, or a copy edited by hand, is refused as for a copy.
func (j *job) stageLinks(ctx context.Context, r Root, rec *Receipts, st *rootStage, opts Options) error {
	if !slices.ContainsFunc(j.roots, func(o Root) bool { return o.Dir == r.Link }) {
		return fmt.Errorf("%s: links to %s, which this install does not write (internal error)", r.Dir, r.Link)
	}
	for _, p := range j.plan {
		name := p.Lock.Name
		old, ok := rec.Get(name)
		dir, target := filepath.Join(r.Dir, name), filepath.Join(r.Link, name)
		if ok && sameBuild(old, p) && old.Link == target && isLinkTo(dir, target) {
			st.unchanged = append(st.unchanged, p)
			continue
		}
		if _, err := os.Lstat(dir); err == nil && !opts.Force && !isLinkTo(dir, target) {
			if !ok {
				what := "placed there by hand or by another tool"
				if o := ForeignOrigin(r.Dir, name); o != "" {
					what = o
				}
				return unexpected(ctx, r.Dir, rec, name, opts, fmt.Errorf("%w: %s exists in %s but was not installed by skillpm (%s); replace it with a link, or keep it and take it under management (adopt)", ErrEdited, name, r.Dir, what))
			}
			if !old.IsLink() {
				if sum, err := archive.TreeHashInstalled(ctx, dir); err != nil || sum.TreeHash != old.Tree {
					return unexpected(ctx, r.Dir, rec, name, opts, fmt.Errorf("%s: %w: %s in %s differs from what skillpm installed; keep your changes elsewhere before replacing it with a link", r.Dir, ErrEdited, name, r.Dir))
				}
			}
		}
		st.todo = append(st.todo, p)
	}
	if opts.DryRun || len(st.todo) == 0 {
		return nil
	}
	tx, err := beginStage(r.Dir)
	if err != nil {
		return err
	}
	st.tx = tx
	for _, p := range st.todo {
		if err := tx.StageLink(p.Lock.Name, linkText(r.Dir, filepath.Join(r.Link, p.Lock.Name))); err != nil {
			return fmt.Errorf("%s: linking %s: %w", r.Dir, p.Lock.Name, err)
		}
	}
	return nil
}

// unexpected is err, a copy in root that its receipts (rec, read under
// the root's lock before the lock was let go for staging) do not explain,
// unless another skillpm has committed name there since: the check ran
// without the lock, so what it found may be that commit, half done or
// done. The receipts are read again under the lock to tell; a change is
// ErrRootChanged, which plans the install again.
func unexpected(ctx context.Context, root string, rec *Receipts, name string, opts Options, err error) error {
	if opts.DryRun {
		return err
	}
	l, lerr := Lock(ctx, root, cmp.Or(opts.LockWait, DefaultLockWait))
	if lerr != nil {
		return err
	}
	defer l.Unlock()
	now, rerr := ReadReceipts(root)
	if rerr != nil {
		return err
	}
	was, had := rec.Get(name)
	is, has := now.Get(name)
	if had != has || !sameRecord(was, is) {
		return fmt.Errorf("%w: another skillpm changed %s in %s while this one checked it; nothing was committed", ErrRootChanged, name, root)
	}
	return err
}
