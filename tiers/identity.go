package tiers

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/skillpm/skillpm/sign"
)

// Fingerprint returns the identity of a public key as package sign defines
// it: "sha256:" + hex(sha256(PKIX DER)).
func Fingerprint(pub any) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// FingerprintPEM parses a PEM "PUBLIC KEY" block and returns its
// fingerprint. It refuses private keys and anything that is not a PKIX
// public key, with a message a person can act on.
func FingerprintPEM(data []byte) (string, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return "", errors.New("it is not a PEM file")
	}
	if strings.Contains(block.Type, "PRIVATE KEY") {
		return "", errors.New("it is a private key (" + block.Type + ")")
	}
	if block.Type != "PUBLIC KEY" {
		return "", fmt.Errorf("its PEM block is %q, not PUBLIC KEY", block.Type)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("it is not a valid public key: %v", err)
	}
	return Fingerprint(pub)
}

// validFingerprint reports whether s is "sha256:" and 64 lower-case hex
// digits.
func validFingerprint(s string) bool {
	hexPart, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	for _, c := range hexPart {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// anchored compiles an RE2 pattern that must match the whole value.
func anchored(re string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(re); err != nil {
		return nil, err
	}
	return regexp.Compile("^(?:" + re + ")$")
}

// Matches reports whether a verified signer identity satisfies the rule.
func (r IdentityRule) Matches(id sign.Identity) bool {
	if r.KeyFingerprint != "" {
		return id.IsKey() && id.KeyFingerprint == r.KeyFingerprint
	}
	if id.IsKey() || (r.Issuer == "" && r.IssuerRegExp == "") || (r.Subject == "" && r.SubjectRegExp == "") {
		return false
	}
	return matchField(r.Issuer, r.IssuerRegExp, r.issuerRE, id.Issuer) &&
		matchField(r.Subject, r.SubjectRegExp, r.subjectRE, id.Subject)
}

func matchField(exact, pattern string, re *regexp.Regexp, value string) bool {
	if pattern == "" {
		return exact == value
	}
	if re == nil {
		// A rule built in code rather than parsed: compile on use.
		var err error
		if re, err = anchored(pattern); err != nil {
			return false
		}
	}
	return re.MatchString(value)
}

func anyMatch(rules []IdentityRule, ids []sign.Identity) (IdentityRule, sign.Identity, bool) {
	for _, id := range ids {
		for _, r := range rules {
			if r.Matches(id) {
				return r, id, true
			}
		}
	}
	return IdentityRule{}, sign.Identity{}, false
}

// SameSigner reports whether two verified identities are the same signer
// for pinning: equal key fingerprints, or equal issuers and subjects. A
// workflow subject is compared without its "@refs/…" suffix, so a CI
// release workflow that signs each tag stays the same signer from one
// version to the next.
func SameSigner(a, b sign.Identity) bool {
	if a.IsKey() || b.IsKey() {
		return a.KeyFingerprint == b.KeyFingerprint
	}
	return a.Issuer == b.Issuer && workflow(a.Subject) == workflow(b.Subject)
}

func workflow(subject string) string {
	if strings.Contains(subject, "://") {
		if i := strings.LastIndex(subject, "@refs/"); i >= 0 {
			return subject[:i]
		}
	}
	return subject
}

// NamesSigner reports whether any rule names id, whatever its scope and
// tier: a signature by an identity no rule names raises no tier (a
// countersignature the policy does not know yet, say).
func (p *Policy) NamesSigner(id sign.Identity) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Rules {
		for _, ir := range r.Identities {
			if ir.Matches(id) {
				return true
			}
		}
	}
	return false
}
