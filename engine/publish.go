package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillpm/skillpm/internal/buildinfo"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// PublishRequest is one publish of a skill directory, or of every skill
// under a directory or of a git reference (PublishAll: one command,
// skillpm publish, with the same knobs).
type PublishRequest struct {
	// Dir is the skill directory (with its SKILL.md); for PublishAll the
	// directory searched for skills, or a git reference
	// (source.LooksGit).
	Dir string
	// Force overwrites a version already published with other content.
	Force bool
	// NoVCS does not record the git origin and commit.
	NoVCS bool
	// AllowAuditFindings publishes although the audit blocks the skill at
	// the tier it claims.
	AllowAuditFindings bool
	// Sign, when set, signs the published version (see Engine.Sign).
	Sign *sign.SignOptions
}

// PublishResult is what a publish did.
type PublishResult struct {
	// Artifact is the built skill (its validation diagnostics included).
	Artifact *registry.Artifact
	*registry.PublishResult
	// Audit is the audit of the packed files (its Path NAME@VERSION) and
	// its verdict at the tier the skill claims.
	Audit *AuditedSkill
	// Signed is the signature, when the request asked for one.
	Signed *registry.VersionSignature
}

// Publish validates the skill in r.Dir strictly, packs it reproducibly,
// audits the packed files at the tier it claims (a block verdict refuses
// it, an error of class errdef.Trust, unless AllowAuditFindings), pushes
// it to the Engine's source (Options.Source, else FallbackSource, else
// the embedded registry) and, when asked, signs it (idempotently: a key
// that already signed it is not used again); when the version changed,
// the source's sparse index (where it has one) re-describes the skill (a
// warning to Options.Log when it cannot). An invalid skill is a
// *BuildError. Once the skill is built, a failure returns the result so
// far (the artifact, the audit) with the error.
func (e *Engine) Publish(ctx context.Context, r PublishRequest) (*PublishResult, error) {
	src, created, err := e.publishTarget()
	if err != nil {
		return nil, err
	}
	warn := func(w archive.PackWarning) { e.note("warning: " + w.Message) }
	bopts := registry.BuildOptions{Created: created, NoVCS: r.NoVCS, PackWarn: warn}
	out, err := e.publishDir(ctx, src, r.Dir, bopts, r.Dir, true, r.Force, r.AllowAuditFindings)
	if err != nil {
		return out, err
	}
	if r.Sign != nil {
		if out.Signed, err = e.signPublished(ctx, src, out, *r.Sign); err != nil {
			return out, err
		}
	}
	if !out.Unchanged {
		e.refreshSparse(ctx, src, []string{out.Artifact.Skill.Name}, false, r.Sign)
	}
	return out, nil
}

// publishDir builds the skill in dir (where names it in a *BuildError,
// local says it is a directory of the user's, not of a git reference),
// audits it at the tier it claims and pushes it to src: Publish without
// signing.
func (e *Engine) publishDir(ctx context.Context, src registry.Source, dir string, bopts registry.BuildOptions, where string, local, force, allowAudit bool) (*PublishResult, error) {
	a, err := registry.Build(ctx, dir, bopts)
	if err != nil {
		return nil, &BuildError{Where: where, Dir: local, Err: err}
	}
	out := &PublishResult{Artifact: a}
	if out.Audit, err = e.auditArtifact(ctx, a); err != nil {
		return out, err
	}
	if out.Audit.Verdict.Decision == audit.Block && !allowAudit {
		return out, fmt.Errorf("%w: %s@%s at tier %s", errAuditBlocked, a.Skill.Name, a.Skill.Version, out.Audit.Verdict.Tier)
	}
	if out.PublishResult, err = e.client.Publish(ctx, src, a, registry.PublishOptions{Force: force}); err != nil {
		return out, err
	}
	return out, nil
}

// signPublished signs the version out pushed to src (signDigest).
func (e *Engine) signPublished(ctx context.Context, src registry.Source, out *PublishResult, opts sign.SignOptions) (*registry.VersionSignature, error) {
	repo, err := e.client.Repository(src, out.Artifact.Skill.Name)
	if err != nil {
		return nil, err
	}
	return e.signDigest(ctx, repo, out.Descriptor, out.Artifact.Skill.Version, opts)
}

// auditArtifact audits the files of a built skill as they will be
// published (unpacked from its layer, not read from its directory again)
// at the tier it claims.
func (e *Engine) auditArtifact(ctx context.Context, a *registry.Artifact) (*AuditedSkill, error) {
	tmp, err := os.MkdirTemp("", "skillpm-publish-audit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, a.Skill.Name)
	if _, err := archive.Unpack(ctx, bytes.NewReader(a.Layer), dir, archive.Limits{}); err != nil {
		return nil, fmt.Errorf("auditing %s@%s before publishing: %w", a.Skill.Name, a.Skill.Version, err)
	}
	rep, err := audit.Scan(ctx, dir, audit.Options{Tool: buildinfo.Tool()})
	if err != nil {
		return nil, fmt.Errorf("auditing %s@%s before publishing: %w", a.Skill.Name, a.Skill.Version, err)
	}
	v, err := rep.Verdict("")
	if err != nil {
		return nil, err
	}
	return &AuditedSkill{Path: a.Skill.Name + "@" + a.Skill.Version, Report: rep, Verdict: v}, nil
}

// openSource opens a source of skills: s (a registry namespace or
// oci-layout:DIR), else FallbackSource, else the embedded registry.
func (e *Engine) openSource(s string) (registry.Source, error) {
	if s == "" {
		s = e.opts.FallbackSource
	}
	spec, err := source.Parse(s)
	if err != nil {
		return nil, invalid(err)
	}
	return e.client.OpenSource(spec)
}

// publishTarget is where a publish writes, the Engine's source (Source,
// else FallbackSource, else the embedded registry), and the time its
// artifacts record (SOURCE_DATE_EPOCH, else none).
func (e *Engine) publishTarget() (registry.Source, time.Time, error) {
	dest, err := e.openSource(e.opts.Source)
	if err != nil {
		return nil, time.Time{}, err
	}
	created, err := registry.SourceDateEpoch(e.getenv)
	if err != nil {
		return nil, time.Time{}, invalid(err)
	}
	return dest, created, nil
}
