package gitsource

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
)

// CommitSigner checks the SSH signature of the resolved commit offline,
// from the commit object in the cache, and returns the signing public key
// (ed25519, ECDSA or RSA, as crypto/x509 can marshal). An unsigned commit,
// or one signed another way (OpenPGP, gitsign), gives ok false and no
// error: it is simply unsigned for skillpm. A signature that does not
// verify is an error.
//
// The signature is verified by ssh-keygen -Y check-novalidate against the
// key it carries; whether that key is trusted is the policy's decision.
// It covers the commit, whose tree id covers every file exported from it.
func (c *Cache) CommitSigner(ctx context.Context, res *Resolved) (key crypto.PublicKey, ok bool, err error) {
	key, ok, err = c.commitSigner(ctx, res)
	if err != nil {
		return nil, false, &Error{Ref: res.Ref.At(res.Commit).String(), Err: err}
	}
	return key, ok, nil
}

func (c *Cache) commitSigner(ctx context.Context, res *Resolved) (crypto.PublicKey, bool, error) {
	raw, err := c.commitObject(ctx, res)
	if err != nil {
		return nil, false, err
	}
	payload, armored := splitSignature(raw)
	if !strings.HasPrefix(armored, "-----BEGIN SSH SIGNATURE-----") {
		return nil, false, nil
	}
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		return nil, false, fmt.Errorf("%w: the commit is SSH-signed and checking it needs ssh-keygen (OpenSSH); install it", ErrBadSignature)
	}
	tmp, err := os.MkdirTemp("", "skillpm-sig-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(tmp)
	sigFile := filepath.Join(tmp, "commit.sig")
	if err := os.WriteFile(sigFile, []byte(armored), 0o600); err != nil {
		return nil, false, err
	}
	cmd := exec.CommandContext(ctx, keygen, "-Y", "check-novalidate", "-n", "git", "-s", sigFile)
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, false, fmt.Errorf("%w: commit %s: %s", ErrBadSignature, short(res.Commit), strings.TrimSpace(string(out)))
	}
	pub, err := sshsigKey(armored)
	if err != nil {
		return nil, false, fmt.Errorf("%w: commit %s: %v", ErrBadSignature, short(res.Commit), err)
	}
	return pub, true, nil
}

// splitSignature removes the gpgsig header (and its continuation lines)
// from a raw commit object, returning what was signed and the signature.
func splitSignature(raw string) (payload, sig string) {
	head, body, _ := strings.Cut(raw, "\n\n")
	var keep, sigLines []string
	in := false
	for _, line := range strings.Split(head, "\n") {
		switch {
		case strings.HasPrefix(line, "gpgsig "):
			in = true
			sigLines = append(sigLines, strings.TrimPrefix(line, "gpgsig "))
		case in && strings.HasPrefix(line, " "):
			sigLines = append(sigLines, line[1:])
		default:
			in = false
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n") + "\n\n" + body, strings.Join(sigLines, "\n") + "\n"
}

// sshsigKey returns the public key an armored SSHSIG blob carries (the
// PROTOCOL.sshsig layout: "SSHSIG", a version, then the key).
func sshsigKey(armored string) (crypto.PublicKey, error) {
	var b64 strings.Builder
	for _, line := range strings.Split(armored, "\n") {
		if !strings.HasPrefix(line, "-----") {
			b64.WriteString(strings.TrimSpace(line))
		}
	}
	blob, err := base64.StdEncoding.DecodeString(b64.String())
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(blob, []byte("SSHSIG")) || len(blob) < 14 {
		return nil, errors.New("not an SSH signature")
	}
	n := binary.BigEndian.Uint32(blob[10:14])
	if uint64(len(blob)) < 14+uint64(n) {
		return nil, errors.New("truncated SSH signature")
	}
	key, err := ssh.ParsePublicKey(blob[14 : 14+n])
	if err != nil {
		return nil, err
	}
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("unsupported key type %s", key.Type())
	}
	return ck.CryptoPublicKey(), nil
}
