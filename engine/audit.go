package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/buildinfo"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// AuditRequest is `skillpm audit`: a static audit, without executing
// anything, of skill directories or of one published version.
type AuditRequest struct {
	// Paths are skill directories, or one published reference
	// (NAME[@VERSION], REGISTRY/NAMESPACE/NAME[@VERSION],
	// oci-layout:DIR/NAME[@VERSION]); an existing directory is always
	// audited as one.
	Paths []string
	// Recursive audits every directory holding a SKILL.md below each of
	// Paths.
	Recursive bool
	// Tier judges at this tier; "" the tier each skill claims.
	Tier string
	// Sign, when set, gives the options to sign an audit attestation of
	// the verdict with, attached to the published version. It is called
	// once the reference is known to name a version, before anything is
	// pulled, so that a wrong passphrase costs nothing.
	Sign func(context.Context) (sign.SignOptions, error)
	// Suggest adds to each skill the permissions that would cover what
	// its code does (AuditedSkill.Suggestion).
	Suggest bool
}

// AuditResult is what Audit found, one entry per skill in order; an
// audit.Summary counts them (Add each one).
type AuditResult struct {
	Skills []AuditedSkill
}

// AuditedSkill is the audit of one skill, or why it could not be
// audited (Err; only when several are audited). Its report's digest,
// which an attestation records, is Report.Digest.
type AuditedSkill struct {
	// Path is the directory as asked for, or NAME@VERSION for a
	// published version (or one Publish built): how findings name the
	// skill's files.
	Path string
	// Report is the audit; Verdict its decision at the tier asked for
	// (the one the skill claims by default).
	Report  *audit.Report
	Verdict audit.Verdict
	Err     error
	// Manifest is the published version audited; repo holds it.
	Manifest *registry.SkillVersion
	repo     *registry.Repository
	// Attestation is the audit attestation attached with Sign.
	Attestation *registry.AuditAttestation
	// Suggestion is set when the request asked for it: the
	// metadata.gaia.permissions (and allowed-tools) covering the code.
	Suggestion *audit.Suggestion
}

// Audit audits r.Paths. One path (without Recursive) is one skill: a
// directory, or a published version pulled with the safe unpacker into a
// temporary directory (exactly the files install would write), whose
// verdict Sign attests; its failure to audit is returned (marked
// install.ErrAuditFailed). Several paths, or Recursive, are directories
// audited with one scanner, each failure recorded in its entry. Verdicts
// that block are results, not errors.
func (e *Engine) Audit(ctx context.Context, r AuditRequest) (*AuditResult, error) {
	if len(r.Paths) == 1 && !r.Recursive {
		s, err := e.auditOne(ctx, r)
		if err != nil {
			return nil, err
		}
		return &AuditResult{Skills: []AuditedSkill{*s}}, nil
	}
	if r.Sign != nil {
		return nil, fmt.Errorf("%w: audit several skills without signing", ErrAttestVersion)
	}
	dirs, err := auditDirs(r.Paths, r.Recursive)
	if err != nil {
		return nil, err
	}
	sc, err := audit.New(audit.Options{Tool: buildinfo.Tool(), CacheDir: e.auditCacheDir()})
	if err != nil {
		return nil, errdef.Mark(install.ErrAuditFailed, err)
	}
	// The skills are independent: they are audited concurrently, each
	// into its place.
	skills := make([]AuditedSkill, len(dirs))
	err = forEach(ctx, len(dirs), func(ctx context.Context, i int) error {
		s := AuditedSkill{Path: dirs[i]}
		if s.Report, s.Suggestion, s.Err = scanFor(ctx, sc, dirs[i], r.Suggest); s.Err == nil {
			if err := s.judge(r.Tier); err != nil {
				return err
			}
		}
		skills[i] = s
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	return &AuditResult{Skills: skills}, nil
}

// judge sets the verdict at tier.
func (s *AuditedSkill) judge(tier string) error {
	v, err := s.Report.Verdict(tier)
	if err != nil {
		return invalid(err)
	}
	s.Verdict = v
	return nil
}

// auditDirs checks that every path is a directory and, with recursive,
// lists the skill directories below each.
func auditDirs(paths []string, recursive bool) ([]string, error) {
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, errdef.Mark(audit.ErrNotDir, invalid(fmt.Errorf("%s is not a directory: several skills are audited from directories (audit a published REF on its own)", p)))
		}
	}
	if !recursive {
		return paths, nil
	}
	var dirs []string
	for _, root := range paths {
		found, err := skillDirsUnder(root)
		if err != nil {
			return nil, &skillDirsError{root: root, err: err}
		}
		if len(found) == 0 {
			return nil, &skillDirsError{root: root}
		}
		dirs = append(dirs, found...)
	}
	return dirs, nil
}

// skillDirsUnder lists every directory below root (root included) that
// holds a SKILL.md, sorted, skipping VCS and dependency folders.
func skillDirsUnder(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		switch d.Name() {
		case ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv":
			if p != root {
				return fs.SkipDir
			}
		}
		for _, name := range []string{skill.SkillFile, "skill.md"} {
			if st, err := os.Stat(filepath.Join(p, name)); err == nil && st.Mode().IsRegular() {
				dirs = append(dirs, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	return dirs, nil
}

// isPublishedRef reports whether an argument names a published skill
// rather than a directory: an existing directory always wins.
func isPublishedRef(arg string) bool {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return false
	}
	ref, err := source.ParseRef(arg)
	return err == nil && ref.Kind != source.RefDir
}

// auditOne audits one directory or published version.
func (e *Engine) auditOne(ctx context.Context, r AuditRequest) (*AuditedSkill, error) {
	arg := r.Paths[0]
	s := &AuditedSkill{Path: arg}
	dir := arg
	var opts *sign.SignOptions
	if isPublishedRef(arg) {
		if r.Sign != nil {
			o, err := r.Sign(ctx)
			if err != nil {
				return nil, err
			}
			opts = &o
		}
		tmp, err := os.MkdirTemp("", "skillpm-audit-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if dir, err = e.pullForAudit(ctx, s, arg, tmp); err != nil {
			return nil, err
		}
	} else if r.Sign != nil {
		return nil, fmt.Errorf("%s is a directory: %w", arg, ErrAttestVersion)
	}
	sc, err := audit.New(audit.Options{Tool: buildinfo.Tool(), CacheDir: e.auditCacheDir()})
	if err != nil {
		return nil, errdef.Mark(install.ErrAuditFailed, err)
	}
	if s.Report, s.Suggestion, err = scanFor(ctx, sc, dir, r.Suggest); err != nil {
		return nil, errdef.Mark(install.ErrAuditFailed, err)
	}
	if err := s.judge(r.Tier); err != nil {
		return nil, err
	}
	if opts != nil {
		if s.Attestation, err = e.attestAudit(ctx, s, *opts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// scanFor audits dir, with the permission suggestion when asked.
func scanFor(ctx context.Context, sc *audit.Scanner, dir string, suggest bool) (*audit.Report, *audit.Suggestion, error) {
	if suggest {
		return sc.Suggest(ctx, dir)
	}
	rep, err := sc.Scan(ctx, dir)
	return rep, nil, err
}

// pullForAudit resolves ref and unpacks it with the safe, bounded
// unpacker (the tree hash checked) below tmp; it returns the directory.
func (e *Engine) pullForAudit(ctx context.Context, s *AuditedSkill, ref, tmp string) (string, error) {
	repo, m, err := e.resolveRef(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return "", fmt.Errorf("%s is no directory, and no published skill: %w", ref, err)
	}
	if err != nil {
		return "", err
	}
	dest := filepath.Join(tmp, m.Metadata.Name)
	if _, err := repo.Pull(ctx, m, dest, registry.PullOptions{}); err != nil {
		return "", err
	}
	s.repo, s.Manifest = repo, m
	s.Path = m.Metadata.Name + "@" + m.Metadata.Version
	return dest, nil
}

// attestAudit signs s's verdict as an audit attestation about the
// pulled manifest and attaches it.
func (e *Engine) attestAudit(ctx context.Context, s *AuditedSkill, opts sign.SignOptions) (*registry.AuditAttestation, error) {
	p, err := s.Report.Attestation(s.Verdict)
	if err != nil {
		return nil, err
	}
	raw, err := p.JSON()
	if err != nil {
		return nil, err
	}
	desc := s.Manifest.Descriptor
	sig, err := sign.SignStatement(ctx, desc, attest.PredicateType, raw, opts)
	if err != nil {
		if errors.Is(err, sign.ErrNoSigner) || errors.Is(err, sign.ErrConflictingSigners) || errors.Is(err, sign.ErrNoSigningConfig) || errors.Is(err, sign.ErrNoService) {
			return nil, invalid(err)
		}
		return nil, fmt.Errorf("signing the audit attestation of %s: %w", s.Path, err)
	}
	created, err := registry.SourceDateEpoch(e.getenv)
	if err != nil {
		return nil, invalid(err)
	}
	ref, err := s.repo.AttachBundle(ctx, desc, sig.Bundle, registry.AttachOptions{Created: created, PredicateType: attest.PredicateType})
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", s.Path, registry.ErrAttestationNotAttached, err)
	}
	return &registry.AuditAttestation{Attached: registry.Attached{Name: s.Manifest.Metadata.Name, Version: s.Manifest.Metadata.Version,
		Repository: s.repo.Location().String(), Digest: desc.Digest.String(), Signer: sig.Identity, Referrer: ref.Digest.String()}, Predicate: p}, nil
}
