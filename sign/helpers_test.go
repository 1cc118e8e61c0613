package sign

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// testDigest is the sha256 digest of a made-up manifest number n.
func testDigest(n int) digest.Digest {
	return digest.FromBytes(fmt.Appendf(nil, `{"schemaVersion":2,"n":%d}`, n))
}

// manifestDesc is a skill manifest descriptor for d.
func manifestDesc(d digest.Digest) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d, Size: 512}
}

// newKey makes a key of alg for a test. Its PrivatePEM is plain PKCS#8:
// cosign's scrypt-encrypted format costs a quarter second per key, which
// only the tests of that format pay.
func newKey(t testing.TB, alg Algorithm) *KeyPair {
	t.Helper()
	var s crypto.Signer
	var err error
	switch alg {
	case Ed25519:
		_, s, err = ed25519.GenerateKey(rand.Reader)
	default:
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	key, err := newPrivateKey(s)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return &KeyPair{Key: key, PrivatePEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), PublicPEM: key.PublicKeyPEM()}
}

// signKey signs d with key and returns the bundle JSON.
func signKey(t testing.TB, key *PrivateKey, d digest.Digest) []byte {
	t.Helper()
	sig, err := Sign(context.Background(), manifestDesc(d), SignOptions{Key: key})
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return sig.Bundle
}

// editBundle decodes bundle JSON into a generic map, lets edit change it
// and encodes it again: the tool for tampering tests.
func editBundle(t testing.TB, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decoding bundle: %v", err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("encoding bundle: %v", err)
	}
	return out
}

// dsseOf returns the bundle's dsseEnvelope object.
func dsseOf(m map[string]any) map[string]any { return m["dsseEnvelope"].(map[string]any) }

// payloadOf decodes the DSSE payload (the statement) of a bundle.
func payloadOf(t testing.TB, b []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	p, err := base64.StdEncoding.DecodeString(dsseOf(m)["payload"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
