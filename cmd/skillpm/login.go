package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/skillpm/skillpm/pkg/errdef"
)

type loginFlags struct {
	regFlags
	username      string
	passwordStdin bool
}

func newLoginCmd(g *globals) *cobra.Command {
	var f loginFlags
	c := &cobra.Command{
		Use:   "login HOST",
		Short: "Store credentials for a registry",
		Long: `Login checks a username and password against the registry HOST and stores
them as Docker does ($DOCKER_CONFIG/config.json, else ~/.docker/config.json):
in the credential helper the config names for HOST or its credsStore, else in
the config file itself (base64, not encrypted; a warning says so). The
password is read from stdin with --password-stdin, else prompted for on the
terminal; it is never taken from the command line.`,
		Example: `  skillpm login ghcr.io -u alice
  echo "$TOKEN" | skillpm login ghcr.io -u alice --password-stdin
  skillpm login localhost:5000 -u dev --password-stdin --plain-http`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runLogin(c, g, &f, args[0])
		},
	}
	c.Flags().StringVarP(&f.username, "username", "u", "", "user name (prompted for when missing)")
	c.Flags().BoolVar(&f.passwordStdin, "password-stdin", false, "read the password (or token) from stdin")
	f.addPlainHTTP(c)
	return c
}

func runLogin(c *cobra.Command, g *globals, f *loginFlags, host string) error {
	user, password, err := readCredentials(g, f)
	if err != nil {
		return err
	}
	client, err := regClient(g, &f.regFlags)
	if err != nil {
		return err
	}
	res, err := client.Login(c.Context(), host, user, password)
	if err != nil {
		return err
	}
	if res.Helper == "" && res.ConfigPath != "" {
		g.o().Warn(fmt.Sprintf("the credentials are stored unencrypted in %s; configure a credential helper (credsStore) to avoid it", res.ConfigPath))
	}
	where := res.ConfigPath
	if res.Helper != "" {
		where = "credential helper docker-credential-" + res.Helper
	}
	if g.json() {
		return g.writeJSON(map[string]any{"host": host, "username": user, "credentials": where})
	}
	if !g.quiet {
		fmt.Fprintf(g.stdout, "logged in to %s as %s (credentials in %s)\n", host, user, where)
	}
	return nil
}

// readCredentials gets the user name (-u, else a prompt on a terminal)
// and the password (stdin with --password-stdin, else a prompt on a
// terminal): a front end's input, which registry.Client.Login takes.
func readCredentials(g *globals, f *loginFlags) (user, password string, _ error) {
	in := bufio.NewReader(g.stdin)
	user = f.username
	stdinTTY := regIsTerminal(g.stdin)
	if user == "" {
		if f.passwordStdin || !stdinTTY {
			return "", "", classed(errdef.Usage, errors.New("no user name: give -u USER"))
		}
		fmt.Fprint(g.stderr, "Username: ")
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return "", "", classed(errdef.Usage, fmt.Errorf("reading the user name: %w", err))
		}
		user = strings.TrimSpace(line)
	}
	switch {
	case f.passwordStdin:
		data, err := io.ReadAll(io.LimitReader(in, 64<<10))
		if err != nil {
			return "", "", fmt.Errorf("reading the password from stdin: %w", err)
		}
		password = strings.TrimRight(string(data), "\r\n")
	case stdinTTY:
		fmt.Fprint(g.stderr, "Password: ")
		data, err := term.ReadPassword(int(g.stdin.(*os.File).Fd()))
		fmt.Fprintln(g.stderr)
		if err != nil {
			return "", "", fmt.Errorf("reading the password: %w", err)
		}
		password = string(data)
	default:
		return "", "", classed(errdef.Usage, errors.New("stdin is not a terminal: pipe the password with --password-stdin"))
	}
	if user == "" || password == "" {
		return "", "", classed(errdef.Usage, errors.New("user name and password must not be empty"))
	}
	return user, password, nil
}

func newLogoutCmd(g *globals) *cobra.Command {
	var f regFlags
	return &cobra.Command{
		Use:   "logout HOST",
		Short: "Remove the stored credentials of a registry",
		Long: `Logout removes the credentials stored for HOST from Docker's config or
credential helper. Logging out of a host with none stored is not an error.`,
		Example: "  skillpm logout ghcr.io",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			client, err := regClient(g, &f)
			if err != nil {
				return err
			}
			if err := client.Logout(c.Context(), args[0]); err != nil {
				return err
			}
			if g.json() {
				return g.writeJSON(map[string]any{"host": args[0], "logged_out": true})
			}
			if !g.quiet {
				fmt.Fprintf(g.stdout, "logged out of %s\n", args[0])
			}
			return nil
		},
	}
}

// regIsTerminal reports whether r is a terminal.
func regIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
