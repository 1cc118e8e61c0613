package sign

import (
	"context"
	_ "embed" // the public-good trusted root and signing config
	"errors"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/skillpm/skillpm/internal/boundedfile"
)

// publicGoodTrustedRoot is the Sigstore public-good trusted root
// (protobuf-specs TrustedRoot JSON, as published by sigstore/root-signing
// in targets/trusted_root.json): the Fulcio CAs, the Rekor v1 log and the
// Rekor v2 log2025-1, the CT logs and the timestamp.sigstore.dev TSA. Its
// pre-2025 entries are the ones in sigstore-go v1.3.0's checksummed module
// (examples/trusted-root-public-good.json). The TUF repository embedded in
// sigstore-go holds only TUF metadata, not this file, and fetching it needs
// the network, so skillpm ships this snapshot and lets users replace it
// with a fresher file (LoadPublicGoodTrustedRoot).
//
//go:embed trusted_root.json
var publicGoodTrustedRoot string

// publicGoodSigningConfig lists the public-good services: Fulcio, the
// OAuth2 issuer, Rekor v1 and timestamp.sigstore.dev.
//
//go:embed signing_config.json
var publicGoodSigningConfig string

// maxTrustFileSize bounds trusted root and signing config files.
const maxTrustFileSize = 4 << 20

// PublicGoodTrustedRoot returns the public-good trusted root embedded in
// skillpm.
func PublicGoodTrustedRoot() (*root.TrustedRoot, error) {
	return ParseTrustedRoot([]byte(publicGoodTrustedRoot))
}

// LoadPublicGoodTrustedRoot returns the public-good trusted root from
// refreshPath when it is set (a trusted_root.json newer than skillpm's,
// e.g. from `cosign trusted-root` or the Sigstore TUF repository), else
// the embedded one.
func LoadPublicGoodTrustedRoot(ctx context.Context, refreshPath string) (*root.TrustedRoot, error) {
	if refreshPath == "" {
		return PublicGoodTrustedRoot()
	}
	return LoadTrustedRoot(ctx, refreshPath)
}

// LoadTrustedRoot reads a trusted root file in protobuf-specs JSON form
// (a private Sigstore's, or a refreshed public-good one).
func LoadTrustedRoot(ctx context.Context, path string) (*root.TrustedRoot, error) {
	data, err := readTrustFile(ctx, path)
	if err != nil {
		return nil, err
	}
	tr, err := ParseTrustedRoot(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

// ParseTrustedRoot parses trusted root JSON.
func ParseTrustedRoot(data []byte) (*root.TrustedRoot, error) {
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parsing trusted root: %w", err)
	}
	return tr, nil
}

// PublicGoodSigningConfig returns the signing config of the public-good
// Sigstore instances, embedded in skillpm.
func PublicGoodSigningConfig() (*root.SigningConfig, error) {
	return ParseSigningConfig([]byte(publicGoodSigningConfig))
}

// LoadSigningConfig reads a signing config file (protobuf-specs JSON,
// media type application/vnd.dev.sigstore.signingconfig.v0.2+json).
func LoadSigningConfig(ctx context.Context, path string) (*root.SigningConfig, error) {
	data, err := readTrustFile(ctx, path)
	if err != nil {
		return nil, err
	}
	sc, err := ParseSigningConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// ParseSigningConfig parses signing config JSON.
func ParseSigningConfig(data []byte) (*root.SigningConfig, error) {
	sc, err := root.NewSigningConfigFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parsing signing config: %w", err)
	}
	return sc, nil
}

func readTrustFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := boundedfile.Read(path, maxTrustFileSize)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}
