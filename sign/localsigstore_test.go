package sign

// A Sigstore made in-process for the keyless tests: a Fulcio, a timestamp
// authority and a Rekor v1 log, each behind a loopback HTTP server that
// speaks the real API, so skillpm's keyless signing runs its real code path
// (sigstore-go's Fulcio, TSA and Rekor clients) offline. The Rekor log is
// sigstore-go's virtual Sigstore (its log key signs the entries' promises
// and checkpoints); the certificate and timestamp authorities are made here
// because the virtual Sigstore neither issues certificates for a given
// public key nor timestamps a given hash, and its intermediates are only
// valid from two minutes ago, too late to test expired certificates.

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
	"github.com/go-openapi/runtime"
	"github.com/go-openapi/strfmt"
	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1" // the entry kind sigstore-go uploads DSSE as
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Fulcio's certificate extensions for the OIDC issuer (v1: raw bytes, v2:
// a DER UTF8String); Fulcio sets both.
var (
	oidIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}
	oidIssuerV2 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}
)

// testCA is a Fulcio-like CA and a timestamp authority under one root,
// valid two days either side of now.
type testCA struct {
	root, inter                *x509.Certificate
	rootKey, interKey          *ecdsa.PrivateKey
	tsaInter, tsaLeaf          *x509.Certificate
	tsaInterKey, tsaLeafKey    *ecdsa.PrivateKey
	validFrom, validUntil      time.Time
	fulcioURI, timestampingURI string
}

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	now := time.Now()
	c := &testCA{validFrom: now.Add(-48 * time.Hour), validUntil: now.Add(48 * time.Hour)}
	c.rootKey, c.root = mustCert(t, &x509.Certificate{
		Subject:  pkix.Name{CommonName: "skillpm-test-root", Organization: []string{"skillpm.test"}},
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign, BasicConstraintsValid: true, IsCA: true,
	}, nil, nil, c.validFrom, c.validUntil)
	c.interKey, c.inter = mustCert(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "skillpm-test-fulcio", Organization: []string{"skillpm.test"}},
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}, BasicConstraintsValid: true, IsCA: true,
	}, c.root, c.rootKey, c.validFrom, c.validUntil)
	c.tsaInterKey, c.tsaInter = mustCert(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "skillpm-test-tsa-intermediate", Organization: []string{"skillpm.test"}},
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}, BasicConstraintsValid: true, IsCA: true,
	}, c.root, c.rootKey, c.validFrom, c.validUntil)
	// RFC 3161 wants the timestamping EKU alone and critical.
	eku, err := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
	if err != nil {
		t.Fatal(err)
	}
	c.tsaLeafKey, c.tsaLeaf = mustCert(t, &x509.Certificate{
		Subject:         pkix.Name{CommonName: "skillpm-test-tsa", Organization: []string{"skillpm.test"}},
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: eku}},
	}, c.tsaInter, c.tsaInterKey, c.validFrom, c.validUntil)
	return c
}

// mustCert makes a key and a certificate for it from template, signed by
// parent (self-signed when parent is nil).
func mustCert(t testing.TB, template, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, notBefore, notAfter time.Time) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = template, key
	}
	cert, err := signCert(template, &key.PublicKey, parent, parentKey, notBefore, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

func signCert(template *x509.Certificate, pub crypto.PublicKey, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, notBefore, notAfter time.Time) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	template.SerialNumber = serial
	template.NotBefore, template.NotAfter = notBefore, notAfter
	der, err := x509.CreateCertificate(rand.Reader, template, parent, pub, parentKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

// issue makes a Fulcio-style code signing certificate: the SAN is a URI
// when san looks like one, else an email address; the OIDC issuer goes in
// both issuer extensions.
func (c *testCA) issue(pub crypto.PublicKey, san, issuer string, notBefore, notAfter time.Time) (*x509.Certificate, error) {
	v2, err := asn1.MarshalWithParams(issuer, "utf8")
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{
			{Id: oidIssuerV1, Value: []byte(issuer)},
			{Id: oidIssuerV2, Value: v2},
		},
	}
	if strings.Contains(san, "://") {
		u, err := url.Parse(san)
		if err != nil {
			return nil, err
		}
		tmpl.URIs = []*url.URL{u}
	} else {
		tmpl.EmailAddresses = []string{san}
	}
	return signCert(tmpl, pub, c.inter, c.interKey, notBefore, notAfter)
}

// timestampResponse answers an RFC 3161 request as of at.
func (c *testCA) timestampResponse(req *timestamp.Request, at time.Time) ([]byte, error) {
	ts := timestamp.Timestamp{
		HashAlgorithm:   req.HashAlgorithm,
		HashedMessage:   req.HashedMessage,
		Time:            at,
		Nonce:           req.Nonce,
		Policy:          asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2},
		ExtraExtensions: req.Extensions,
	}
	return ts.CreateResponseWithOpts(c.tsaLeaf, c.tsaLeafKey, crypto.SHA256)
}

func (c *testCA) fulcioAuthority() *root.FulcioCertificateAuthority {
	return &root.FulcioCertificateAuthority{
		Root: c.root, Intermediates: []*x509.Certificate{c.inter},
		ValidityPeriodStart: c.validFrom, ValidityPeriodEnd: c.validUntil, URI: c.fulcioURI,
	}
}

func (c *testCA) timestampingAuthority() *root.SigstoreTimestampingAuthority {
	return &root.SigstoreTimestampingAuthority{
		Root: c.root, Intermediates: []*x509.Certificate{c.tsaInter}, Leaf: c.tsaLeaf,
		ValidityPeriodStart: c.validFrom, ValidityPeriodEnd: c.validUntil, URI: c.timestampingURI,
	}
}

// localSigstore serves testCA as Fulcio and a TSA, and the virtual
// Sigstore as Rekor v1.
type localSigstore struct {
	ca                 *testCA
	vs                 *ca.VirtualSigstore
	fulcio, tsa, rekor *httptest.Server
	mu                 sync.Mutex
	tsaAt              time.Time // zero: now
	calls              map[string]int
}

func newLocalSigstore(t testing.TB) *localSigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	ls := &localSigstore{ca: newTestCA(t), vs: vs, calls: map[string]int{}}
	ls.fulcio = httptest.NewServer(http.HandlerFunc(ls.serveFulcio))
	ls.tsa = httptest.NewServer(http.HandlerFunc(ls.serveTSA))
	ls.rekor = httptest.NewServer(http.HandlerFunc(ls.serveRekor))
	t.Cleanup(ls.fulcio.Close)
	t.Cleanup(ls.tsa.Close)
	t.Cleanup(ls.rekor.Close)
	ls.ca.fulcioURI, ls.ca.timestampingURI = ls.fulcio.URL, ls.tsa.URL
	return ls
}

func (ls *localSigstore) count(service string) int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.calls[service]
}

func (ls *localSigstore) called(service string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.calls[service]++
}

// setTimestampTime makes the TSA stamp at t (zero: the current time).
func (ls *localSigstore) setTimestampTime(t time.Time) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.tsaAt = t
}

// trustedRoot is the trust material for this Sigstore: its CA and TSA,
// and its Rekor log when withLog. It has no CT log (the certificates carry
// no SCT), so verification does not ask for one.
func (ls *localSigstore) trustedRoot(t testing.TB, withLog bool) *root.TrustedRoot {
	t.Helper()
	var logs map[string]*root.TransparencyLog
	if withLog {
		// The virtual Sigstore's log ID is its hex text, not the raw key ID
		// a trusted root file holds; fix it so the root survives a round
		// trip through JSON.
		logs = map[string]*root.TransparencyLog{}
		for id, l := range ls.vs.RekorLogs() {
			raw, err := hex.DecodeString(id)
			if err != nil {
				t.Fatal(err)
			}
			c := *l
			c.ID = raw
			logs[id] = &c
		}
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		[]root.CertificateAuthority{ls.ca.fulcioAuthority()}, nil,
		[]root.TimestampingAuthority{ls.ca.timestampingAuthority()}, logs)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// signingConfig lists this Sigstore's Fulcio and, as asked, its Rekor and
// TSA.
func (ls *localSigstore) signingConfig(t testing.TB, withRekor, withTSA bool) *root.SigningConfig {
	t.Helper()
	svc := func(u string) []root.Service {
		return []root.Service{{URL: u, MajorAPIVersion: 1, ValidityPeriodStart: time.Now().Add(-time.Hour), Operator: "skillpm.test"}}
	}
	var rekors, tsas []root.Service
	if withRekor {
		rekors = svc(ls.rekor.URL)
	}
	if withTSA {
		tsas = svc(ls.tsa.URL)
	}
	any := root.ServiceConfiguration{Selector: prototrustroot.ServiceSelector_ANY}
	sc, err := root.NewSigningConfig(root.SigningConfigMediaType02, svc(ls.fulcio.URL), nil, rekors, any, tsas, any)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// idToken makes an unsigned JWT with claims. Fulcio verifies tokens
// against the issuer; this one trusts them, which is all the client side
// can tell apart anyway.
func idToken(claims map[string]any) string {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2lnbmF0dXJl"
}

func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), code)
}

// serveFulcio implements POST /api/v2/signingCert as Fulcio does for a
// public key request: check the token's subject was signed by the key
// (proof of possession), then issue a certificate for the token's
// identity. GitHub Actions tokens get the workflow URI as SAN.
func (ls *localSigstore) serveFulcio(w http.ResponseWriter, r *http.Request) {
	ls.called("fulcio")
	if r.Method != http.MethodPost || r.URL.Path != "/api/v2/signingCert" {
		httpError(w, http.StatusNotFound, "no such endpoint %s %s", r.Method, r.URL.Path)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), ".")
	if len(parts) != 3 {
		httpError(w, http.StatusUnauthorized, "no bearer token")
		return
	}
	rawClaims, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		httpError(w, http.StatusUnauthorized, "bad token: %v", err)
		return
	}
	var claims struct {
		Issuer         string `json:"iss"`
		Subject        string `json:"sub"`
		Email          string `json:"email"`
		JobWorkflowRef string `json:"job_workflow_ref"`
	}
	if err := json.Unmarshal(rawClaims, &claims); err != nil {
		httpError(w, http.StatusUnauthorized, "bad token claims: %v", err)
		return
	}
	var req struct {
		PublicKeyRequest struct {
			PublicKey struct {
				Algorithm string `json:"algorithm"`
				Content   string `json:"content"`
			} `json:"publicKey"`
			ProofOfPossession string `json:"proofOfPossession"`
		} `json:"publicKeyRequest"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "bad request: %v", err)
		return
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(req.PublicKeyRequest.PublicKey.Content))
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad public key: %v", err)
		return
	}
	ecPub, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		httpError(w, http.StatusBadRequest, "want an ECDSA key, got %T", pub)
		return
	}
	subject := claims.Subject
	if claims.Email != "" {
		subject = claims.Email
	}
	pop, err := base64.StdEncoding.DecodeString(req.PublicKeyRequest.ProofOfPossession)
	sum := sha256.Sum256([]byte(subject))
	if err != nil || !ecdsa.VerifyASN1(ecPub, sum[:], pop) {
		httpError(w, http.StatusBadRequest, "proof of possession does not verify")
		return
	}
	san := claims.Email
	if claims.JobWorkflowRef != "" {
		san = "https://github.com/" + claims.JobWorkflowRef
	}
	if san == "" {
		httpError(w, http.StatusBadRequest, "token has no email or workflow identity")
		return
	}
	now := time.Now()
	leaf, err := ls.ca.issue(pub, san, claims.Issuer, now.Add(-time.Minute), now.Add(10*time.Minute))
	if err != nil {
		httpError(w, http.StatusInternalServerError, "issuing: %v", err)
		return
	}
	chain := make([]string, 0, 3)
	for _, c := range []*x509.Certificate{leaf, ls.ca.inter, ls.ca.root} {
		chain = append(chain, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": chain}},
	})
}

// serveTSA implements an RFC 3161 timestamp authority.
func (ls *localSigstore) serveTSA(w http.ResponseWriter, r *http.Request) {
	ls.called("tsa")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	req, err := timestamp.ParseRequest(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad timestamp request: %v", err)
		return
	}
	ls.mu.Lock()
	at := ls.tsaAt
	ls.mu.Unlock()
	if at.IsZero() {
		at = time.Now()
	}
	resp, err := ls.ca.timestampResponse(req, at)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	_, _ = w.Write(resp)
}

// serveRekor implements Rekor v1's POST /api/v1/log/entries: validate and
// canonicalize the proposed entry as Rekor does, then answer with the
// entry, its signed entry timestamp and an inclusion proof from the
// virtual Sigstore's log key.
func (ls *localSigstore) serveRekor(w http.ResponseWriter, r *http.Request) {
	ls.called("rekor")
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/log/entries" {
		httpError(w, http.StatusNotFound, "no such endpoint %s %s", r.Method, r.URL.Path)
		return
	}
	pe, err := models.UnmarshalProposedEntry(r.Body, runtime.JSONConsumer())
	if err != nil {
		httpError(w, http.StatusBadRequest, "bad proposed entry: %v", err)
		return
	}
	entry, err := types.CreateVersionedEntry(pe)
	if err != nil {
		httpError(w, http.StatusBadRequest, "invalid entry: %v", err)
		return
	}
	body, err := types.CanonicalizeEntry(r.Context(), entry)
	if err != nil {
		httpError(w, http.StatusBadRequest, "canonicalizing: %v", err)
		return
	}
	logID, err := ls.vs.RekorLogID()
	if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	now, index := time.Now().Unix(), int64(0)
	b64 := base64.StdEncoding.EncodeToString(body)
	set, err := ls.vs.RekorSignPayload(tlog.RekorPayload{Body: b64, IntegratedTime: now, LogIndex: index, LogID: logID})
	if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	proof, err := ls.vs.GetInclusionProof(body)
	if err != nil {
		httpError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	sum := sha256.Sum256(body)
	uuid := hex.EncodeToString(sum[:])
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(models.LogEntry{uuid: models.LogEntryAnon{
		Body: b64, IntegratedTime: &now, LogID: &logID, LogIndex: &index,
		Verification: &models.LogEntryAnonVerification{InclusionProof: proof, SignedEntryTimestamp: strfmt.Base64(set)},
	}})
}

// caProvider is a sigstore-go CertificateProvider that issues from testCA
// in-process, with a chosen validity: for bundles the Fulcio API cannot
// make (an already expired certificate).
type caProvider struct {
	ca                  *testCA
	san, issuer         string
	notBefore, notAfter time.Time
}

func (p caProvider) GetCertificate(_ context.Context, kp sgsign.Keypair, _ *sgsign.CertificateProviderOptions) ([]byte, error) {
	cert, err := p.ca.issue(kp.GetPublicKey(), p.san, p.issuer, p.notBefore, p.notAfter)
	if err != nil {
		return nil, err
	}
	return cert.Raw, nil
}
