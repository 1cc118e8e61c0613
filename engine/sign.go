package engine

import (
	"context"
	"crypto"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
)

// SignRequest names the published version Sign signs and how.
type SignRequest struct {
	// Ref is the reference (NAME[@RANGE], REGISTRY/NAMESPACE/NAME[@VERSION],
	// oci-layout:DIR/NAME[@VERSION]).
	Ref string
	// Sign says how to sign (a key, or keyless).
	Sign sign.SignOptions
}

// Sign signs the version r.Ref selects and attaches the signature, as
// `skillpm sign` does: idempotently for keys (nothing is signed when a
// signature by r.Sign.Key verifies already), then refreshes the
// namespace's sparse index, which lists each version's signatures.
func (e *Engine) Sign(ctx context.Context, r SignRequest) (*registry.VersionSignature, error) {
	repo, m, err := e.resolveRef(ctx, r.Ref)
	if err != nil {
		return nil, err
	}
	out, err := e.signDigest(ctx, repo, m.Descriptor, m.Metadata.Version, r.Sign)
	if err == nil && !out.Unchanged {
		e.refreshSparse(ctx, repo.Source(), []string{repo.Name()}, false, &r.Sign)
	}
	return out, err
}

// signDigest signs desc (a version of repo's skill) and attaches the
// signature as an OCI referrer in cosign's format. It is idempotent for
// keys: when a signature by opts.Key already verifies, nothing is signed
// and the result says Unchanged.
func (e *Engine) signDigest(ctx context.Context, repo *registry.Repository, desc ocispec.Descriptor, version string, opts sign.SignOptions) (*registry.VersionSignature, error) {
	out := &registry.VersionSignature{Attached: registry.Attached{Name: repo.Name(), Version: version, Repository: repo.Location().String(), Digest: desc.Digest.String()}}
	set, err := repo.Signatures(ctx, desc)
	if err != nil {
		return nil, err
	}
	out.Junk = len(set.Unreadable)
	if opts.Key != nil && len(set.Bundles) > 0 {
		res, err := sign.VerifyAll(ctx, set.Raw(), desc.Digest, sign.VerifyOptions{PublicKeys: []crypto.PublicKey{opts.Key.Public()}})
		if err != nil {
			return nil, err
		}
		if len(res.Verified) > 0 {
			out.Signer, out.Unchanged = res.Verified[0].Identity, true
			out.Referrer = set.Bundles[res.Verified[0].Index].Referrer.Digest.String()
			return out, nil
		}
	}
	sig, err := sign.Sign(ctx, desc, opts)
	if err != nil {
		if errors.Is(err, sign.ErrNoSigner) || errors.Is(err, sign.ErrConflictingSigners) || errors.Is(err, sign.ErrNoSigningConfig) || errors.Is(err, sign.ErrNoService) {
			return nil, invalid(err)
		}
		return nil, fmt.Errorf("signing %s@%s: %w", repo.Name(), version, err)
	}
	created, err := registry.SourceDateEpoch(e.getenv)
	if err != nil {
		return nil, invalid(err)
	}
	ref, err := repo.AttachSignature(ctx, desc, sig.Bundle, registry.AttachOptions{Created: created})
	if err != nil {
		return nil, fmt.Errorf("%s@%s is signed but the signature could not be attached (run skillpm sign again): %w", repo.Name(), version, err)
	}
	out.Signer, out.Referrer = sig.Identity, ref.Digest.String()
	return out, nil
}
