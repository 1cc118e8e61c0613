package main

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

// trustFlags are the flags that choose the trust policy and material:
// verify and promote.
type trustFlags struct {
	policyOption
	keys           []string
	publicGoodRoot string
}

func (f *trustFlags) register(c *cobra.Command) {
	bindPolicy(c.Flags(), &f.policyOption, "")
	c.Flags().StringArrayVar(&f.keys, "key", nil, "also trust the public key in `FILE` (repeatable); the policy still decides the tier its signatures earn")
	c.Flags().StringVar(&f.publicGoodRoot, "public-good-root", "", "a newer public-good Sigstore trusted_root.json `FILE` to use instead of the embedded one")
}

// load returns the effective policy (--policy, else the policy: of the
// project manifest, "" for the one here, else the configuration's, else
// the search path's) and the trust material it names, plus --key and the
// public-good root.
func (f *trustFlags) load(ctx context.Context, g *globals, manifest string) (*tiers.Policy, policycheck.VerifyOptions, error) {
	keys, err := f.publicKeys()
	if err != nil {
		return nil, policycheck.VerifyOptions{}, err
	}
	return f.loadWith(ctx, g, manifest, keys, func(err error) error { return policyLoadError(g, err) }, warnOnce(g))
}

// loadWith is load with the --key keys read; a policy that does not load
// is reported through policyErr, a project policy set aside through warn.
func (f *trustFlags) loadWith(ctx context.Context, g *globals, manifest string, keys []crypto.PublicKey, policyErr func(error) error, warn func(string)) (*tiers.Policy, policycheck.VerifyOptions, error) {
	c, err := choosePolicy(ctx, g, f.policy, manifest, warn)
	if err != nil {
		if c == nil {
			return nil, policycheck.VerifyOptions{}, err
		}
		return nil, policycheck.VerifyOptions{}, policyErr(err)
	}
	return f.trustIn(ctx, c.Policy, keys)
}

// trustIn is the trust material p names, plus the --key keys and the
// public-good root.
func (f *trustFlags) trustIn(ctx context.Context, p *tiers.Policy, keys []crypto.PublicKey) (*tiers.Policy, policycheck.VerifyOptions, error) {
	trust, err := policycheck.PolicyTrust(ctx, p, policycheck.TrustOptions{PublicGoodRoot: f.publicGoodRoot, Keys: keys})
	if err != nil {
		return nil, policycheck.VerifyOptions{}, err
	}
	return p, policycheck.VerifyOptions{Trust: trust, Policy: p}, nil
}

// choosePolicy loads the trust policy a command obeys
// (engine.LoadPolicy: file, else the project's, else config.yaml's, else
// the search path's) and warns, through warn, of a project policy it set
// aside because this machine has not approved it. The choice is returned
// with a load error when it names the file that failed (which trust add
// may create).
func choosePolicy(ctx context.Context, g *globals, file, manifest string, warn func(string)) (*engine.PolicyChoice, error) {
	c, err := engine.LoadPolicy(ctx, engine.PolicyRequest{File: file, Manifest: manifest, Configured: g.config().Policy})
	if c != nil && c.Unapproved != "" && warn != nil {
		warn(unapprovedPolicy(c))
	}
	return c, err
}

// unapprovedPolicy says why a project's policy is not obeyed and how to
// obey it.
func unapprovedPolicy(c *engine.PolicyChoice) string {
	why := "is not approved on this machine"
	if c.Changed {
		why = "has changed since it was approved on this machine"
	}
	instead := "the built-in default"
	if c.File != "" {
		instead = c.File
	}
	return fmt.Sprintf("not using the trust policy %s that this project's skills.yaml names: it %s, and a cloned project must not trust its own keys (using %s instead); review it, then approve it with: skillpm policy approve %s", c.Unapproved, why, instead, c.Unapproved)
}

// publicKeys reads the --key files.
func (f *trustFlags) publicKeys() ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	for _, path := range f.keys {
		data, err := sign.ReadKeyFile(path)
		if err != nil {
			return nil, classed(errdef.Usage, fmt.Errorf("--key: %w", err))
		}
		k, err := sign.LoadPublicKey(data)
		if err != nil {
			return nil, classed(errdef.Usage, fmt.Errorf("--key %s: %w (give the .pub file)", path, err))
		}
		keys = append(keys, k)
	}
	return keys, nil
}

type verifyFlags struct {
	regFlags
	trustFlags
	minTier string
}

type verifySigJSON struct {
	Referrer string         `json:"referrer"`
	Created  string         `json:"created,omitempty"`
	Verified bool           `json:"verified"`
	Signer   *sign.Identity `json:"signer,omitempty"`
	Error    string         `json:"error,omitempty"`
}

type verifyJSON struct {
	Name       string          `json:"name"`
	Version    string          `json:"version"`
	Repository string          `json:"repository"`
	Digest     string          `json:"digest"`
	Policy     string          `json:"policy"`
	Signatures []verifySigJSON `json:"signatures"`
	Signers    []sign.Identity `json:"signers"`
	Verified   int             `json:"verified"`
	Failed     int             `json:"failed"`
	Tier       string          `json:"tier"`
	MinTier    string          `json:"minTier,omitempty"`
	Decision   tiers.Decision  `json:"decision"`
	Audits     []auditAttJSON  `json:"audits"`
}

func newVerifyCmd(g *globals) *cobra.Command {
	var f verifyFlags
	c := &cobra.Command{
		Use:   "verify REF",
		Short: "Verify a skill's signatures and show the tier the trust policy gives",
		Long: `Verify reads every signature attached to a published skill version (OCI
referrers in cosign's format: skillpm's and cosign's alike), verifies each
against the manifest digest with the trust material: the public keys the
trust policy names, its trusted roots, the public-good Sigstore root embedded
in skillpm, and --key. It prints the verified signers, every signature that
failed and why (a failed signature never counts), which policy matched, and
the tier: the lower of what the policy attests and what the skill claims.

The policy is --policy FILE, else $XDG_CONFIG_HOME/skillpm/policy.yaml, else
/etc/skillpm/policy.yaml, else the built-in default (everything
experimental). A policy identity given only as keyFingerprint needs its key
with --key: a key signature does not carry its public key.

Audit attestations (skillpm audit REF --sign) are verified with the same
trust material and listed: one counts when it verifies, its verdict is pass
or review (never block) and it was judged at the tier the skill claims or
above; a policy rule with requireAudit grants its tier only when a counting
attestation's signer matches one of its requireAudit identities.

--output json prints one document: name, version, repository, digest, policy
(the file, or "built-in default"), signatures (each: referrer, created,
verified, signer or error), signers, verified, failed, tier, minTier, the
decision (repository as policies match it, claimed, attested, effective,
policy, scope, signer, identity, audits, warnings, why), and audits (each:
referrer, created, verified, counts, signer, predicate, note or error).

Exit status: 0 when at least one signature verifies (whatever the tier);
5 when none does, or when the tier is below --min-tier.`,
		Example: `  skillpm verify web-research@1.0.0
  skillpm verify web-research@1.0.0 --min-tier verified
  skillpm verify ghcr.io/acme/skills/web-research@^1 --output json
  skillpm verify localhost:5000/skills/web-research@1.0.0 --plain-http --key cosign.pub`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runVerify(c, g, &f, args[0])
		},
	}
	c.Flags().StringVar(&f.minTier, "min-tier", "", "exit 5 unless the skill's effective tier is at least `TIER` (experimental, community, verified)")
	f.trustFlags.register(c)
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

func runVerify(c *cobra.Command, g *globals, f *verifyFlags, arg string) error {
	if f.minTier != "" && !tiers.ValidTier(f.minTier) {
		return classed(errdef.Usage, fmt.Errorf("--min-tier must be experimental, community or verified, not %q", f.minTier))
	}
	ctx := c.Context()
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, trust: &f.trustFlags, from: f.registry})
	if err != nil {
		return err
	}
	ver, verr := e.Verify(ctx, engine.VerifyRequest{Ref: arg, MinTier: f.minTier})
	if ver == nil {
		return sourceErr(g, f.registry, verr)
	}
	if err := printVerify(g, ver, f.minTier); err != nil {
		return err
	}
	return verifyRefusal(ver, arg, f.minTier, verr)
}

// verifyRefusal words the engine's refusal for the command line (exit 5).
func verifyRefusal(ver *engine.VerifyResult, arg, minTier string, verr error) error {
	m := ver.Manifest
	at := m.Metadata.Name + "@" + m.Metadata.Version
	switch {
	case errors.Is(verr, policycheck.ErrNotSigned):
		return classed(errdef.Trust, fmt.Errorf("%s (%s) is not signed: no signature is attached; sign it with skillpm sign %s --key K", at, m.Descriptor.Digest, arg))
	case errors.Is(verr, policycheck.ErrNoVerifiedSignature):
		return classed(errdef.Trust, fmt.Errorf("%s: no signature verifies (%s failed, listed above); the trust policy names no key or root that signed it (add the signer's .pub to the policy, or --key)", at, plural(len(ver.Checks), "signature")))
	case errors.Is(verr, skill.ErrBelowMinTier):
		return classed(errdef.Trust, fmt.Errorf("%s is %s, below --min-tier %s", at, ver.Decision.Effective, minTier))
	}
	return verr
}

// printVerify renders a verification: warnings on stderr, then JSON, the
// effective tier alone (-q), or the report.
func printVerify(g *globals, ver *engine.VerifyResult, minTier string) error {
	p, m, v, av, d := ver.Policy, ver.Manifest, ver.Verification, ver.Audits, ver.Decision
	at := m.Metadata.Name + "@" + m.Metadata.Version
	if !g.quiet {
		for _, warn := range d.Warnings {
			g.o().Warn(fmt.Sprintf("%s: %s", termText(at), termLines(warn)))
		}
	}
	if n := junkReferrers(v); n > 0 {
		g.o().Warn(fmt.Sprintf("%s: %s posing as signatures are junk (unreadable, malformed, or about another digest); someone may be flooding it: they never count, and real signatures are found among up to %d", termText(at), plural(n, "referrer"), registry.MaxSignatures))
	}
	switch {
	case g.json():
		j := verifyDoc(p, m, v, minTier)
		j.Audits = auditDocs(av)
		return g.writeJSON(j)
	case g.quiet:
		// -q: only the answer, the effective tier.
		fmt.Fprintln(g.stdout, d.Effective)
	default:
		printVerification(g.stdout, p, m, v, av)
	}
	return nil
}

func policyName(p *tiers.Policy) string {
	if p.IsDefault() {
		return "built-in default"
	}
	return p.Source
}

func verifyDoc(p *tiers.Policy, m *registry.SkillVersion, v *policycheck.Verification, minTier string) verifyJSON {
	j := verifyJSON{Name: m.Metadata.Name, Version: m.Metadata.Version, Repository: v.Location.String(),
		Digest: m.Descriptor.Digest.String(), Policy: policyName(p), Signatures: []verifySigJSON{}, Signers: v.Signers,
		Verified: v.Verified(), Failed: len(v.Failures()), Tier: string(v.Decision.Effective), MinTier: minTier, Decision: v.Decision}
	if j.Signers == nil {
		j.Signers = []sign.Identity{}
	}
	for _, ch := range v.Checks {
		s := verifySigJSON{Referrer: ch.Referrer.Digest.String(), Created: ch.Created, Verified: ch.Err == nil, Signer: ch.Signer}
		if ch.Err != nil {
			s.Error = ch.Err.Error()
		}
		j.Signatures = append(j.Signatures, s)
	}
	return j
}

func printVerification(w io.Writer, p *tiers.Policy, m *registry.SkillVersion, v *policycheck.Verification, av *registry.AuditVerification) {
	d := v.Decision
	fmt.Fprintf(w, "%s %s\n", termText(m.Metadata.Name), termText(m.Metadata.Version))
	row := func(k, val string) { fmt.Fprintf(w, "  %-12s %s\n", k+":", termText(val)) }
	if loc := v.Location.String(); loc != v.Repository {
		row("repository", loc+" (policies match it as "+v.Repository+")")
	} else {
		row("repository", loc)
	}
	row("digest", m.Descriptor.Digest.String())
	row("signatures", fmt.Sprintf("%d verified, %d failed", v.Verified(), len(v.Failures())))
	for _, ch := range v.Checks {
		when := ""
		if ch.Created != "" {
			when = ", created " + ch.Created
		}
		if ch.Err == nil {
			fmt.Fprintf(w, "    verified  %s (signature %s%s)\n", termText(ch.Signer.String()), ch.Referrer.Digest, termText(when))
		} else {
			fmt.Fprintf(w, "    FAILED    signature %s%s: %s\n", ch.Referrer.Digest, termText(when), termLines(ch.Err.Error()))
		}
	}
	printAudits(w, av)
	row("trust policy", policyName(p))
	if d.Policy != "" {
		row("matched", fmt.Sprintf("policy %s (scope %s), signer %s", d.Policy, d.Scope, d.Signer))
	} else {
		row("matched", "no policy")
	}
	row("tier", fmt.Sprintf("%s (attested %s, claimed %s)", d.Effective, d.Attested, d.Claimed))
	fmt.Fprintln(w, "  why:")
	for _, why := range d.Why {
		fmt.Fprintf(w, "    - %s\n", termLines(strings.TrimSpace(why)))
	}
}

// junkReferrers counts the signature referrers that are not signatures
// at all: unreadable, malformed, or over another digest. A well-formed
// signature by a key the policy does not trust is not junk.
func junkReferrers(v *policycheck.Verification) int {
	n := 0
	for _, f := range v.Failures() {
		if !errors.Is(f.Err, sign.ErrUntrustedKey) && !errors.Is(f.Err, sign.ErrUntrustedCertificate) && !errors.Is(f.Err, sign.ErrIdentityRejected) {
			n++
		}
	}
	return n
}
