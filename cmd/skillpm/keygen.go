package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
)

type keygenFlags struct {
	prefix       string
	alg          string
	noPassphrase bool
	force        bool
}

type keygenJSON struct {
	PrivateKey  string `json:"privateKey"`
	PublicKey   string `json:"publicKey"`
	Algorithm   string `json:"algorithm"`
	Fingerprint string `json:"fingerprint"`
	Passphrase  bool   `json:"passphrase"`
}

func newKeygenCmd(g *globals) *cobra.Command {
	var f keygenFlags
	c := &cobra.Command{
		Use:   "keygen",
		Short: "Make a signing key pair",
		Long: `Keygen makes a signing key pair: PREFIX.key, the private key (mode 0600,
encrypted with a passphrase in cosign's format, so cosign sign --key reads it),
and PREFIX.pub, the public key (PEM), which a trust policy names to trust the
signer. The signer identity is the public key's fingerprint (sha256 of its
DER), printed here.

The passphrase comes from $SKILLPM_PASSWORD (else $COSIGN_PASSWORD); set and
empty means none, as in cosign. Otherwise it is asked for twice on a terminal.
--no-passphrase makes a key without one (for CI secrets stores that encrypt
it anyway). Existing files are never overwritten without --force.`,
		Example: `  skillpm keygen
  skillpm keygen --output-prefix keys/release --alg ed25519
  SKILLPM_PASSWORD=$SECRET skillpm keygen --output-prefix ci
  skillpm keygen --output-prefix throwaway --no-passphrase`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			alg := sign.Algorithm(f.alg)
			if alg != sign.ECDSAP256 && alg != sign.Ed25519 {
				return classed(errdef.Usage, fmt.Errorf("--alg must be %s or %s, not %q", sign.ECDSAP256, sign.Ed25519, f.alg))
			}
			pass, err := keygenPassphrase(g, f.noPassphrase)
			if err != nil {
				return err
			}
			kp, err := sign.GenerateKey(alg, pass)
			if err != nil {
				return err
			}
			keyPath, pubPath, err := sign.WriteKeyPair(c.Context(), f.prefix, kp, f.force)
			if errors.Is(err, sign.ErrKeyExists) {
				return fmt.Errorf("%w; choose another --output-prefix PREFIX, or pass --force to replace the pair (whoever trusts the old .pub stops trusting new signatures)", err)
			}
			if err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(keygenJSON{PrivateKey: keyPath, PublicKey: pubPath, Algorithm: string(alg),
					Fingerprint: kp.Key.Fingerprint(), Passphrase: len(pass) > 0})
			}
			prot := "passphrase-protected"
			if len(pass) == 0 {
				prot = "no passphrase"
			}
			fmt.Fprintf(g.stdout, "wrote %s (private, %s, mode 0600) and %s (public)\n", keyPath, prot, pubPath)
			fmt.Fprintf(g.stdout, "signer: key %s (%s)\n", kp.Key.Fingerprint(), alg)
			if !g.quiet {
				fmt.Fprintf(g.stdout, "sign with:  skillpm publish DIR --sign --key %s\ntrust with: skillpm trust add %s (or a policy identity \"- key: %s\")\n", keyPath, pubPath, pubPath)
			}
			return nil
		},
	}
	c.Flags().StringVar(&f.prefix, "output-prefix", "skillpm", "write `PREFIX`.key and PREFIX.pub")
	c.Flags().StringVar(&f.alg, "alg", string(sign.DefaultAlgorithm), "key algorithm: ecdsa-p256 or ed25519")
	c.Flags().BoolVar(&f.noPassphrase, "no-passphrase", false, "do not protect the private key with a passphrase")
	c.Flags().BoolVar(&f.force, "force", false, "overwrite existing key files")
	return c
}

// keygenPassphrase returns the passphrase for a new key: none with
// --no-passphrase, else the environment's, else asked twice on a terminal.
func keygenPassphrase(g *globals, none bool) ([]byte, error) {
	if none {
		return nil, nil
	}
	if pass, _, ok := passphraseEnv(); ok {
		return pass, nil
	}
	pass, ok, err := promptPassphrase(g, "Enter a passphrase for the private key: ")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, classed(errdef.Usage, fmt.Errorf("no passphrase: set %s, run on a terminal to be asked, or pass --no-passphrase", envPassword))
	}
	again, _, err := promptPassphrase(g, "Enter it again: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(pass, again) {
		return nil, classed(errdef.Usage, errors.New("the passphrases do not match"))
	}
	if len(pass) == 0 {
		g.o().Warn("empty passphrase: anyone who reads the .key file can sign as you")
	}
	return pass, nil
}
