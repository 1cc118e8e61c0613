package gittest

import (
	"crypto"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/ssh"
)

// SSHKey makes an ed25519 SSH key pair with ssh-keygen in dir and returns
// the private key file and the public key.
func SSHKey(t testing.TB, dir string) (keyFile string, pub crypto.PublicKey) {
	t.Helper()
	keyFile = filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", keyFile).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen (install OpenSSH to run the signed-commit tests): %v\n%s", err, out)
	}
	data, err := os.ReadFile(keyFile + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		t.Fatal(err)
	}
	return keyFile, key.(ssh.CryptoPublicKey).CryptoPublicKey()
}

// CommitSigned commits everything signed with the SSH key keyFile and
// returns the commit id.
func (r *Repo) CommitSigned(msg, keyFile string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+keyFile, "commit", "-q", "-S", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}
