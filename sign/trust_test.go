package sign

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

func publicGoodRoots(t testing.TB) []root.TrustedMaterial {
	t.Helper()
	tr, err := PublicGoodTrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	return []root.TrustedMaterial{tr}
}

func TestPublicGoodTrustedRoot(t *testing.T) {
	tr, err := PublicGoodTrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.FulcioCertificateAuthorities()); n != 2 {
		t.Errorf("%d Fulcio CAs, want 2", n)
	}
	if n := len(tr.RekorLogs()); n != 2 {
		t.Errorf("%d Rekor logs, want 2 (v1 and log2025-1)", n)
	}
	if n := len(tr.CTLogs()); n != 2 {
		t.Errorf("%d CT logs, want 2", n)
	}
	tsas := tr.TimestampingAuthorities()
	if len(tsas) != 1 {
		t.Fatalf("%d timestamp authorities, want 1", len(tsas))
	}
	// The TSA chain is well formed: its leaf verifies under its root.
	tsa := tsas[0].(*root.SigstoreTimestampingAuthority)
	if err := tsa.Leaf.CheckSignatureFrom(tsa.Root); err != nil {
		t.Errorf("TSA leaf not signed by its root: %v", err)
	}
	if tsa.URI != "https://timestamp.sigstore.dev/api/v1/timestamp" {
		t.Errorf("TSA URI %q", tsa.URI)
	}
}

func TestLoadTrustedRoot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "trusted_root.json")
	if err := os.WriteFile(good, []byte(publicGoodTrustedRoot), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrustedRoot(ctx, good); err != nil {
		t.Errorf("LoadTrustedRoot: %v", err)
	}
	if _, err := LoadPublicGoodTrustedRoot(ctx, good); err != nil {
		t.Errorf("LoadPublicGoodTrustedRoot(file): %v", err)
	}
	if _, err := LoadPublicGoodTrustedRoot(ctx, ""); err != nil {
		t.Errorf("LoadPublicGoodTrustedRoot(embedded): %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mediaType":"nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrustedRoot(ctx, bad); err == nil {
		t.Error("a bad trusted root loaded")
	}
	if _, err := LoadTrustedRoot(ctx, filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing trusted root loaded")
	}
}

func TestPublicGoodSigningConfig(t *testing.T) {
	sc, err := PublicGoodSigningConfig()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for name, svcs := range map[string][]root.Service{
		"Fulcio": sc.FulcioCertificateAuthorityURLs(),
		"OIDC":   sc.OIDCProviderURLs(),
		"Rekor":  sc.RekorLogURLs(),
		"TSA":    sc.TimestampAuthorityURLs(),
	} {
		if len(svcs) == 0 || !svcs[0].ValidAtTime(now) {
			t.Errorf("%s: %v", name, svcs)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "signing_config.json")
	if err := os.WriteFile(p, []byte(publicGoodSigningConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigningConfig(context.Background(), p); err != nil {
		t.Errorf("LoadSigningConfig: %v", err)
	}
}
