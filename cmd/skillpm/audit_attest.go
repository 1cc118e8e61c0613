package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/audit/attest"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

// auditSource is a published skill version pulled for skillpm audit REF.
type auditSource struct {
	repo *registry.Repository
	m    *registry.Manifest
	// dir is the temporary directory the version was unpacked into.
	dir string
	// shown is NAME@VERSION, how findings name the skill's files.
	shown string
	// opts signs the attestation; nil without --sign.
	opts *sign.SignOptions
}

// isAuditRef reports whether skillpm audit's argument names a published
// skill rather than a directory: an existing directory always wins.
func isAuditRef(arg string) bool {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return false
	}
	ref, err := registry.ParseRef(arg)
	return err == nil && ref.Kind != registry.KindDir
}

// pullForAudit resolves REF and unpacks it with the safe, bounded unpacker
// (the tree hash checked) into a temporary directory; cleanup removes it.
// The signing key is loaded first, so a wrong passphrase costs nothing.
func pullForAudit(c *cobra.Command, g *globals, f *auditFlags, arg string) (*auditSource, func(), error) {
	ctx := c.Context()
	src := &auditSource{}
	if f.sign.wanted() {
		opts, err := f.sign.options(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		src.opts = &opts
	}
	repo, m, err := resolveRef(ctx, g, &f.regFlags, arg)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil, withCode(exitResolution, fmt.Errorf("%s is no directory, and no published skill: %w", arg, err))
	}
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "skillpm-audit-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dest := filepath.Join(tmp, m.Metadata.Name)
	if _, err := repo.Pull(ctx, m, dest, registry.PullOptions{}); err != nil {
		cleanup()
		return nil, nil, regExit(err)
	}
	src.repo, src.m, src.dir = repo, m, dest
	src.shown = m.Metadata.Name + "@" + m.Metadata.Version
	return src, cleanup, nil
}

// attestedJSON is an attached audit attestation.
type attestedJSON struct {
	Name       string           `json:"name"`
	Version    string           `json:"version"`
	Repository string           `json:"repository"`
	Digest     string           `json:"digest"`
	Signer     sign.Identity    `json:"signer"`
	Referrer   string           `json:"referrer"`
	Predicate  attest.Predicate `json:"predicate"`
}

// attestAudit signs the verdict of rep as an audit attestation about the
// pulled manifest and attaches it.
func attestAudit(ctx context.Context, src *auditSource, rep *audit.Report, v audit.Verdict) (*attestedJSON, error) {
	p, err := rep.Attestation(v)
	if err != nil {
		return nil, err
	}
	raw, err := p.JSON()
	if err != nil {
		return nil, err
	}
	desc := src.m.Descriptor
	at := src.shown
	sig, err := sign.SignStatement(ctx, desc, attest.PredicateType, raw, *src.opts)
	if err != nil {
		if errors.Is(err, sign.ErrNoSigner) || errors.Is(err, sign.ErrConflictingSigners) || errors.Is(err, sign.ErrNoSigningConfig) || errors.Is(err, sign.ErrNoService) {
			return nil, withCode(exitUsage, err)
		}
		return nil, fmt.Errorf("signing the audit attestation of %s: %w", at, err)
	}
	created, err := registry.SourceDateEpoch(os.Getenv)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	ref, err := src.repo.AttachBundle(ctx, desc, sig.Bundle, registry.AttachOptions{Created: created, PredicateType: attest.PredicateType})
	if err != nil {
		return nil, regExit(fmt.Errorf("%s: the audit attestation is signed but could not be attached (run skillpm audit --sign again): %w", at, err))
	}
	return &attestedJSON{Name: src.m.Metadata.Name, Version: src.m.Metadata.Version, Repository: src.repo.Location().String(),
		Digest: desc.Digest.String(), Signer: sig.Identity, Referrer: ref.Digest.String(), Predicate: p}, nil
}

func printAttested(w io.Writer, a *attestedJSON) {
	fmt.Fprintf(w, "attested %s@%s (%s) as %s: %s at tier %s; attestation %s attached to %s\n", a.Name, a.Version, a.Digest,
		a.Signer, a.Predicate.Verdict.Decision, a.Predicate.Verdict.Tier, a.Referrer, a.Repository)
}

// auditAttJSON is one audit attestation in skillpm verify --output json.
type auditAttJSON struct {
	Referrer  string            `json:"referrer"`
	Created   string            `json:"created,omitempty"`
	Verified  bool              `json:"verified"`
	Counts    bool              `json:"counts"`
	Signer    *sign.Identity    `json:"signer,omitempty"`
	Predicate *attest.Predicate `json:"predicate,omitempty"`
	Note      string            `json:"note,omitempty"`
	Error     string            `json:"error,omitempty"`
}

func auditDocs(av *registry.AuditVerification) []auditAttJSON {
	out := []auditAttJSON{}
	if av == nil {
		return out
	}
	for _, c := range av.Checks {
		j := auditAttJSON{Referrer: c.Referrer.Digest.String(), Created: c.Created, Verified: c.Err == nil,
			Counts: c.Counts, Signer: c.Signer, Predicate: c.Predicate, Note: c.Note}
		if c.Err != nil {
			j.Error = c.Err.Error()
		}
		out = append(out, j)
	}
	return out
}

// printAudits lists the audit attestations in skillpm verify's layout.
func printAudits(w io.Writer, av *registry.AuditVerification) {
	if av == nil || len(av.Checks) == 0 {
		fmt.Fprintf(w, "  %-12s %s\n", "audits:", "none attached")
		return
	}
	counting := 0
	for _, c := range av.Checks {
		if c.Counts {
			counting++
		}
	}
	fmt.Fprintf(w, "  %-12s %d counting, %d not\n", "audits:", counting, len(av.Checks)-counting)
	for _, c := range av.Checks {
		when := ""
		if c.Created != "" {
			when = ", created " + c.Created
		}
		switch {
		case c.Err != nil:
			fmt.Fprintf(w, "    FAILED    attestation %s%s: %v\n", c.Referrer.Digest, when, c.Err)
		case c.Counts:
			fmt.Fprintf(w, "    attested  %s: %s at %s, report %s (attestation %s%s)\n", c.Signer,
				c.Predicate.Verdict.Decision, c.Predicate.Verdict.Tier, c.Predicate.Report.Digest, c.Referrer.Digest, when)
		default:
			fmt.Fprintf(w, "    ignored   %s: %s (attestation %s%s)\n", c.Signer, c.Note, c.Referrer.Digest, when)
		}
	}
}
