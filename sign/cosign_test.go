//go:build integration && cosign

package sign

// Interop with the real cosign CLI at the bundle level, offline. cosign
// v3 has no offline command for an image signature, but its blob
// attestation commands run the same code on the same statement: `cosign
// verify-blob-attestation --digest` is VerifyNewBundle plus the in-toto
// subject check that `cosign verify` uses for new-format bundles, and
// `cosign attest-blob --statement` signs a given statement with
// signcommon.NewAttestationBundle, which `cosign sign` uses too. The
// registry-level check (`cosign verify --key` on a pushed skill) belongs to
// the registry package.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"google.golang.org/protobuf/encoding/protojson"
)

const cosignInstall = "go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3"

// cosignBinary finds cosign on PATH, in $GOBIN or in GOPATH/bin
// (registrytest.Binary); missing, it fails the test, saying how to
// install it. Outside the integration build the test skips.
func cosignBinary(t *testing.T) string {
	t.Helper()
	return registrytest.Binary(t, "cosign", cosignInstall)
}

type cosignCLI struct {
	t    *testing.T
	bin  string
	home string
}

func newCosign(t *testing.T) *cosignCLI {
	c := &cosignCLI{t: t, bin: cosignBinary(t), home: t.TempDir()}
	out, err := c.run("", "version")
	if err != nil {
		t.Fatalf("cosign version: %v\n%s", err, out)
	}
	if !strings.Contains(out, "v3.") {
		t.Fatalf("need cosign v3 (%s), have:\n%s", cosignInstall, out)
	}
	return c
}

// run runs cosign in its own HOME (no ~/.sigstore state, no TUF cache)
// with COSIGN_PASSWORD set to password.
func (c *cosignCLI) run(password string, args ...string) (string, error) {
	c.t.Helper()
	// A bound that catches a hung cosign, not a slow machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = c.home
	cmd.Env = append(os.Environ(), "HOME="+c.home, "COSIGN_PASSWORD="+password, "COSIGN_YES=true", "TUF_ROOT="+filepath.Join(c.home, "tuf"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// verifyBlobAttestation asks cosign to verify bundlePath as a signature of
// d with the key in pubPath, the tlog check off as for `cosign verify
// --key … --insecure-ignore-tlog=true`.
func (c *cosignCLI) verifyBlobAttestation(bundlePath, pubPath string, d digest.Digest) (string, error) {
	return c.run("", "verify-blob-attestation",
		"--bundle", bundlePath, "--key", pubPath,
		"--digest", d.Encoded(), "--digestAlg", "sha256",
		"--type", PredicateType, "--insecure-ignore-tlog=true")
}

// isPureEd25519 reports whether a bundle's DSSE signature is a pure
// Ed25519 signature of its pre-authentication encoding.
func isPureEd25519(t *testing.T, key *PrivateKey, bundleJSON []byte) bool {
	t.Helper()
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(bundleJSON, &pb); err != nil {
		t.Fatal(err)
	}
	env := pb.GetDsseEnvelope()
	pae := dsse.PAE(env.GetPayloadType(), env.GetPayload())
	return ed25519.Verify(key.Public().(ed25519.PublicKey), pae, env.GetSignatures()[0].GetSig())
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// cosign verifies what skillpm signs.
func TestCosignVerifiesSkillpmBundles(t *testing.T) {
	cosign := newCosign(t)
	ctx := context.Background()
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			dir := t.TempDir()
			kp := newKey(t, alg)
			d := testDigest(40)
			sig, err := Sign(ctx, manifestDesc(d), SignOptions{Key: kp.Key})
			if err != nil {
				t.Fatal(err)
			}
			bundlePath := writeFile(t, filepath.Join(dir, "bundle.json"), sig.Bundle)
			pubPath := writeFile(t, filepath.Join(dir, "skillpm.pub"), kp.PublicPEM)

			out, err := cosign.verifyBlobAttestation(bundlePath, pubPath, d)
			if err != nil || !strings.Contains(out, "Verified OK") {
				t.Fatalf("cosign rejected skillpm's bundle: %v\n%s", err, out)
			}
			// The check is real: cosign refuses it for another digest and
			// for another key.
			if out, err := cosign.verifyBlobAttestation(bundlePath, pubPath, testDigest(41)); err == nil {
				t.Errorf("cosign accepted the bundle for another digest:\n%s", out)
			}
			otherPub := writeFile(t, filepath.Join(dir, "other.pub"), newKey(t, alg).PublicPEM)
			if out, err := cosign.verifyBlobAttestation(bundlePath, otherPub, d); err == nil {
				t.Errorf("cosign accepted the bundle with another key:\n%s", out)
			}
		})
	}
}

// skillpm verifies what cosign signs, with a skillpm key file: cosign reads
// skillpm's key format (so `cosign sign --key skillpm.key` works) and signs
// the statement `cosign sign` would.
func TestSkillpmVerifiesCosignBundles(t *testing.T) {
	cosign := newCosign(t)
	ctx := context.Background()
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			dir := t.TempDir()
			const pass = "cosign interop"
			kp, err := GenerateKey(alg, []byte(pass))
			if err != nil {
				t.Fatal(err)
			}
			keyPath, _, err := WriteKeyPair(ctx, filepath.Join(dir, "skillpm"), kp, false)
			if err != nil {
				t.Fatal(err)
			}
			d := testDigest(42)
			st, err := Statement(d, nil)
			if err != nil {
				t.Fatal(err)
			}
			stPath := writeFile(t, filepath.Join(dir, "statement.json"), st)
			bundlePath := filepath.Join(dir, "cosign-bundle.json")
			out, err := cosign.run(pass, "attest-blob", "--statement", stPath, "--key", keyPath,
				"--bundle", bundlePath, "--tlog-upload=false", "--use-signing-config=false", "--yes")
			if err != nil {
				t.Fatalf("cosign attest-blob: %v\n%s", err, out)
			}
			b, err := os.ReadFile(bundlePath)
			if err != nil {
				t.Fatal(err)
			}
			if got := payloadOf(t, b); !bytes.Equal(got, st) {
				t.Errorf("cosign signed\n%s\nnot\n%s", got, st)
			}
			id, err := Verify(ctx, b, d, VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}})
			if err != nil {
				t.Fatalf("skillpm rejected cosign's bundle: %v", err)
			}
			if id.KeyFingerprint != kp.Key.Fingerprint() {
				t.Errorf("identity %v, want %s", id, kp.Key.Fingerprint())
			}
			if alg == Ed25519 {
				t.Logf("cosign's Ed25519 signature is pure Ed25519: %v (else Ed25519ph)", isPureEd25519(t, kp.Key, b))
			}
			if _, err := Verify(ctx, b, testDigest(43), VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}}); err == nil {
				t.Error("cosign's bundle verified for another digest")
			}
		})
	}
}

// skillpm signs with keys from `cosign generate-key-pair`, with and
// without a password, and both tools verify the result.
func TestCosignGeneratedKeys(t *testing.T) {
	cosign := newCosign(t)
	ctx := context.Background()
	for _, pass := range []string{"", "hunter2"} {
		t.Run("password="+pass, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "cosign")
			if out, err := cosign.run(pass, "generate-key-pair", "--output-key-prefix", prefix); err != nil {
				t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
			}
			privPEM, err := os.ReadFile(prefix + ".key")
			if err != nil {
				t.Fatal(err)
			}
			pubPEM, err := os.ReadFile(prefix + ".pub")
			if err != nil {
				t.Fatal(err)
			}
			key, err := LoadPrivateKey(privPEM, []byte(pass))
			if err != nil {
				t.Fatalf("LoadPrivateKey(cosign.key): %v", err)
			}
			pub, err := LoadPublicKey(pubPEM)
			if err != nil {
				t.Fatalf("LoadPublicKey(cosign.pub): %v", err)
			}
			if Fingerprint(pub) != key.Fingerprint() {
				t.Fatalf("cosign.pub %s does not match cosign.key %s", Fingerprint(pub), key.Fingerprint())
			}
			d := testDigest(44)
			sig, err := Sign(ctx, manifestDesc(d), SignOptions{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(ctx, sig.Bundle, d, VerifyOptions{PublicKeys: []crypto.PublicKey{pub}}); err != nil {
				t.Errorf("skillpm: %v", err)
			}
			bundlePath := writeFile(t, prefix+".bundle.json", sig.Bundle)
			if out, err := cosign.verifyBlobAttestation(bundlePath, prefix+".pub", d); err != nil {
				t.Errorf("cosign: %v\n%s", err, out)
			}
		})
	}
}

// cosign verify-blob accepts skillpm's blob signatures, and skillpm
// cosign's, for both key algorithms.
func TestCosignBlobInterop(t *testing.T) {
	cosign := newCosign(t)
	ctx := context.Background()
	dir := t.TempDir()
	blobPath := writeFile(t, filepath.Join(dir, "SHA256SUMS"), []byte("0123abcd  skillpm-linux-amd64\n"))
	for _, alg := range []Algorithm{ECDSAP256, Ed25519} {
		t.Run(string(alg), func(t *testing.T) {
			kp, err := GenerateKey(alg, nil)
			if err != nil {
				t.Fatal(err)
			}
			prefix := filepath.Join(dir, string(alg))
			keyPath, pubPath, err := WriteKeyPair(ctx, prefix, kp, false)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := SignBlob(ctx, bytes.NewReader([]byte("0123abcd  skillpm-linux-amd64\n")), kp.Key)
			if err != nil {
				t.Fatal(err)
			}
			sigPath := writeFile(t, prefix+".sig", sig)
			if out, err := cosign.run("", "verify-blob", "--key", pubPath, "--signature", sigPath, "--insecure-ignore-tlog=true", blobPath); err != nil {
				t.Errorf("cosign verify-blob: %v\n%s", err, out)
			}
			// The reverse: cosign signs, skillpm verifies.
			cosignSig := prefix + ".cosign.sig"
			if out, err := cosign.run("", "sign-blob", "--key", keyPath, "--tlog-upload=false", "--use-signing-config=false", "--new-bundle-format=false", "--output-signature", cosignSig, blobPath); err != nil {
				t.Fatalf("cosign sign-blob: %v\n%s", err, out)
			}
			cs, err := os.ReadFile(cosignSig)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(blobPath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := VerifyBlob(ctx, f, cs, []crypto.PublicKey{kp.Key.Public()}); err != nil {
				t.Errorf("VerifyBlob(cosign's signature): %v", err)
			}
		})
	}
}
