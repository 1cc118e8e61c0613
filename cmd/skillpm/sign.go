package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Environment variables the signing commands read.
const (
	// envPassword holds a private key's passphrase; "" set means an empty
	// passphrase, as cosign reads COSIGN_PASSWORD.
	envPassword = "SKILLPM_PASSWORD"
	// envCosignPassword is cosign's variable, read when envPassword is not
	// set, so that a cosign set-up signs with skillpm unchanged.
	envCosignPassword = "COSIGN_PASSWORD"
	// envIdentityToken is the ambient OIDC token CI systems provide for
	// Sigstore (GitHub Actions via sigstore/gh-action, GitLab id_tokens).
	envIdentityToken = "SIGSTORE_ID_TOKEN"
)

// signFlags are the flags that choose a signer: sign, promote, and
// publish --sign.
type signFlags struct {
	sign          bool
	key           string
	keyless       bool
	identityToken string
	signingConfig string
	tlogUpload    bool
}

// register adds the signer flags; publish also gets --sign.
func (f *signFlags) register(c *cobra.Command, publish bool) {
	fl := c.Flags()
	if publish {
		fl.BoolVar(&f.sign, "sign", false, "sign the published version (with --key or --keyless)")
	}
	fl.StringVar(&f.key, "key", "", "sign with the private key in `FILE` (skillpm keygen or cosign generate-key-pair); the passphrase comes from $SKILLPM_PASSWORD (else $COSIGN_PASSWORD) or a prompt")
	fl.BoolVar(&f.keyless, "keyless", false, "sign with a short-lived Fulcio certificate for an OIDC identity token (--identity-token or $SIGSTORE_ID_TOKEN)")
	fl.StringVar(&f.identityToken, "identity-token", "", "OIDC identity `TOKEN` for --keyless, or a file holding it (default $SIGSTORE_ID_TOKEN)")
	fl.StringVar(&f.signingConfig, "signing-config", "", "Sigstore signing config `FILE` naming the Fulcio, Rekor and timestamp services (default: the public-good instances)")
	fl.BoolVar(&f.tlogUpload, "tlog-upload", false, "also log a --key signature in Rekor (public; keyless signatures are always logged)")
}

// wanted reports whether signing was asked for; --key and --keyless imply
// publish --sign.
func (f *signFlags) wanted() bool { return f.sign || f.key != "" || f.keyless }

// options turns the flags into sign.SignOptions, loading (and decrypting)
// the key or reading the identity token. Call it before anything is
// published, so that a wrong passphrase costs nothing.
func (f *signFlags) options(ctx context.Context, g *globals) (sign.SignOptions, error) {
	switch {
	case f.key != "" && f.keyless:
		return sign.SignOptions{}, classed(errdef.Usage, errors.New("give --key or --keyless, not both"))
	case f.key == "" && !f.keyless:
		return sign.SignOptions{}, classed(errdef.Usage, errors.New("no signer: give --key FILE (skillpm keygen makes one) or --keyless"))
	case f.keyless && f.tlogUpload:
		return sign.SignOptions{}, classed(errdef.Usage, errors.New("--tlog-upload is for --key signatures; keyless signatures are always logged"))
	}
	var opts sign.SignOptions
	if f.signingConfig != "" || f.keyless || f.tlogUpload {
		sc, err := loadSigningConfig(ctx, f.signingConfig)
		if err != nil {
			return opts, err
		}
		opts.SigningConfig = sc
	}
	if f.key != "" {
		k, err := loadSigningKey(ctx, g, f.key)
		if err != nil {
			return opts, err
		}
		opts.Key, opts.TransparencyLog = k, f.tlogUpload
		return opts, nil
	}
	tok, err := identityToken(f.identityToken)
	if err != nil {
		return opts, err
	}
	opts.IdentityToken = tok
	return opts, opts.Validate()
}

// loadSigningConfig reads --signing-config, else the embedded public-good
// one.
func loadSigningConfig(ctx context.Context, path string) (*root.SigningConfig, error) {
	if path == "" {
		return sign.PublicGoodSigningConfig()
	}
	sc, err := sign.LoadSigningConfig(ctx, path)
	if err != nil {
		return nil, classed(errdef.Usage, fmt.Errorf("--signing-config: %w", err))
	}
	return sc, nil
}

// identityToken returns the OIDC token: the flag's value (or the file it
// names, as cosign reads it), else $SIGSTORE_ID_TOKEN.
func identityToken(flag string) (string, error) {
	tok := flag
	if tok == "" {
		tok = os.Getenv(envIdentityToken)
	} else if fi, err := os.Stat(tok); err == nil && fi.Mode().IsRegular() {
		data, err := sign.ReadKeyFile(tok)
		if err != nil {
			return "", err
		}
		tok = string(data)
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", classed(errdef.Usage, fmt.Errorf("--keyless needs an OIDC identity token: give --identity-token TOKEN|FILE or set %s (CI systems provide one)", envIdentityToken))
	}
	return tok, nil
}

// passphraseEnv returns the passphrase from $SKILLPM_PASSWORD, else
// $COSIGN_PASSWORD, and whether either is set (set and empty is the empty
// passphrase).
func passphraseEnv() ([]byte, string, bool) {
	for _, name := range []string{envPassword, envCosignPassword} {
		if v, ok := os.LookupEnv(name); ok {
			return []byte(v), name, true
		}
	}
	return nil, "", false
}

// promptPassphrase asks for a passphrase on the terminal without echo.
// It returns ok false when stdin or stderr is not a terminal.
func promptPassphrase(g *globals, prompt string) ([]byte, bool, error) {
	if !isTerminal(g.stdin) || !isTerminal(g.stderr) {
		return nil, false, nil
	}
	fmt.Fprint(g.stderr, prompt)
	b, err := term.ReadPassword(int(g.stdin.(*os.File).Fd()))
	fmt.Fprintln(g.stderr)
	if err != nil {
		return nil, true, fmt.Errorf("reading the passphrase: %w", err)
	}
	return b, true, nil
}

// loadSigningKey reads a private key file and decrypts it: with the
// passphrase from the environment when it is set, else with the empty
// passphrase (keygen --no-passphrase), else by asking on the terminal.
func loadSigningKey(ctx context.Context, g *globals, path string) (*sign.PrivateKey, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := sign.ReadKeyFile(path)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	if pass, name, ok := passphraseEnv(); ok {
		k, err := sign.LoadPrivateKey(data, pass)
		if errors.Is(err, sign.ErrDecryptKey) && len(pass) > 0 {
			// A key made with --no-passphrase, while the environment
			// holds another key's passphrase.
			if k, err := sign.LoadPrivateKey(data, nil); err == nil {
				return k, nil
			}
		}
		if errors.Is(err, sign.ErrDecryptKey) {
			return nil, fmt.Errorf("%s: $%s does not decrypt it: %w", path, name, err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return k, nil
	}
	k, err := sign.LoadPrivateKey(data, nil)
	if err == nil {
		return k, nil
	}
	if !errors.Is(err, sign.ErrDecryptKey) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for range 3 {
		pass, ok, perr := promptPassphrase(g, "Enter the passphrase of "+path+": ")
		if perr != nil {
			return nil, perr
		}
		if !ok {
			return nil, classed(errdef.Usage, fmt.Errorf("%s is passphrase-protected and there is no terminal to ask on: set %s", path, envPassword))
		}
		if k, err = sign.LoadPrivateKey(data, pass); !errors.Is(err, sign.ErrDecryptKey) {
			break
		}
		fmt.Fprintln(g.stderr, "wrong passphrase")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// signedJSON is the `skillpm sign` / `promote` document, and publish's
// "signature" (skillpm.Signed).
type signedJSON = registry.VersionSignature

// warnJunk warns on w (stderr) when referrers posing as signatures are
// not readable bundles.
func warnJunk(w io.Writer, s *signedJSON) {
	if s != nil && s.Junk > 0 {
		fmt.Fprintf(w, "warning: %s referrers attached to %s@%s pose as signatures but are not readable bundles; someone may be flooding it (they never count, and verify still finds real signatures among up to %d)\n",
			strconv.Itoa(s.Junk), s.Name, s.Version, registry.MaxSignatures)
	}
}

// printSigned reports a signature in words; verb is "signed" or
// "countersigned".
func printSigned(w io.Writer, s *signedJSON, verb string) {
	if s.Unchanged {
		fmt.Fprintf(w, "%s@%s (%s) is already %s by %s (signature %s); nothing to do\n", s.Name, s.Version, s.Digest, verb, s.Signer, s.Referrer)
		return
	}
	fmt.Fprintf(w, "%s %s@%s (%s) as %s; signature %s attached to %s\n", verb, s.Name, s.Version, s.Digest, s.Signer, s.Referrer, s.Repository)
}

type signCmdFlags struct {
	regFlags
	signFlags
}

func newSignCmd(g *globals) *cobra.Command {
	var f signCmdFlags
	c := &cobra.Command{
		Use:   "sign REF",
		Short: "Sign a published skill version",
		Long: `Sign signs the manifest digest of a published skill version and attaches the
signature to it as an OCI referrer, exactly as cosign v3 does: a Sigstore
bundle holding a DSSE envelope of an in-toto statement, so cosign verify
accepts it and mirrors copy it unchanged.

With --key the signer is the key's fingerprint (skillpm keygen, or a cosign
key pair); the passphrase comes from $SKILLPM_PASSWORD (else
$COSIGN_PASSWORD; set and empty means none), or a prompt on a terminal. A key
that already signed the version is not used again. With --keyless an OIDC
identity token (--identity-token, or $SIGSTORE_ID_TOKEN in CI) gets a
short-lived Fulcio certificate, and the signature is logged in Rekor.

A signature is for one digest: a new version is unsigned until it is signed.
SOURCE_DATE_EPOCH sets the signature's created time.`,
		Example: `  skillpm sign web-research@1.0.0 --key skillpm.key
  SKILLPM_PASSWORD=... skillpm sign ghcr.io/acme/skills/web-research@1.0.0 --key release.key
  skillpm sign localhost:5000/skills/web-research@1.0.0 --plain-http --key skillpm.key
  SIGSTORE_ID_TOKEN=$TOKEN skillpm sign ghcr.io/acme/skills/web-research@1.0.0 --keyless`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			opts, err := f.options(ctx, g)
			if err != nil {
				return err
			}
			e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, lenientEnv: true, noPolicy: true})
			if err != nil {
				return err
			}
			out, err := e.Sign(ctx, engine.SignRequest{Ref: args[0], Sign: opts})
			if err != nil {
				return sourceErr(g, f.registry, err)
			}
			if g.json() {
				return g.writeJSON(out)
			}
			warnJunk(g.stderr, out)
			printSigned(g.stdout, out, "signed")
			return nil
		},
	}
	f.signFlags.register(c, false)
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

// publishOptions returns the signing options of publish --sign, nil when
// signing was not asked for.
func (f *signFlags) publishOptions(ctx context.Context, g *globals) (*sign.SignOptions, error) {
	if !f.wanted() {
		return nil, nil
	}
	opts, err := f.options(ctx, g)
	if err != nil {
		return nil, err
	}
	return &opts, nil
}
