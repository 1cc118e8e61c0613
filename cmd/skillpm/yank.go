package main

import (
	"fmt"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/registry"
	"github.com/spf13/cobra"
)

type statusFlags struct {
	regFlags
	signFlags
	undo   bool
	reason string
}

func newYankCmd(g *globals) *cobra.Command {
	var f statusFlags
	c := &cobra.Command{
		Use:   "yank NAME@VERSION --key K",
		Short: "Withhold a published version from new resolutions (cargo's yank)",
		Long: `Yank marks one published version as withdrawn, as cargo's yank does: a new
resolution (install, add, update, lock) never chooses it, while a lock that
pins it still installs it, with a warning; outdated, list and info show it.
Nothing is deleted: --undo takes the yank back.

The yank is a status attestation signed by the publisher (a key that signed
the version; another key is refused) and attached to the version's manifest
as an OCI referrer, so mirrors and bundles carry it. A status that does not
verify under the trust policy, or whose signer did not sign the version, is
reported and ignored.`,
		Example: `  skillpm yank web-research@1.0.1 --key publisher.key --reason "leaks the API key"
  skillpm yank web-research@1.0.1 --key publisher.key --undo`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			yank := !f.undo
			return runStatus(c, g, &f, engine.SetStatusRequest{Ref: args[0], Yank: &yank, Reason: f.reason})
		},
	}
	f.signFlags.register(c, false)
	c.Flags().BoolVar(&f.undo, "undo", false, "take a yank back")
	c.Flags().StringVar(&f.reason, "reason", "", "say why, shown wherever the version is")
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

func newDeprecateCmd(g *globals) *cobra.Command {
	var f statusFlags
	c := &cobra.Command{
		Use:   `deprecate NAME[@RANGE] "MESSAGE" --key K`,
		Short: "Attach a deprecation message to published versions (npm's deprecate)",
		Long: `Deprecate attaches a message to every published version NAME@RANGE holds
(every version without a range), as npm's deprecate does: install warns with
it, and outdated and info show it. The versions stay installable and
resolvable. An empty message ("") takes the deprecation back.

Like a yank, the message is a status attestation signed by the publisher and
attached to each version.`,
		Example: `  skillpm deprecate web-research@"<2" "use web-research 2, which pins its sources" --key publisher.key
  skillpm deprecate web-research "" --key publisher.key`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return runStatus(c, g, &f, engine.SetStatusRequest{Ref: args[0], Deprecate: &args[1]})
		},
	}
	f.signFlags.register(c, false)
	f.addRegistry(c)
	f.addPlainHTTP(c)
	return c
}

// runStatus signs and attaches the status r asks for and prints each
// version it changed.
func runStatus(c *cobra.Command, g *globals, f *statusFlags, r engine.SetStatusRequest) error {
	ctx := c.Context()
	opts, err := f.options(ctx, g)
	if err != nil {
		return err
	}
	r.Sign = opts
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry})
	if err != nil {
		return err
	}
	res, err := e.SetStatus(ctx, r)
	if g.json() && err == nil {
		return g.writeJSON(res.Changes)
	}
	for _, s := range res.Changes {
		fmt.Fprintln(g.stdout, statusLine(s))
	}
	return err
}

// statusLine renders one status change.
func statusLine(s registry.StatusChange) string {
	at := s.Name + "@" + s.Version
	st := s.Status
	var what string
	switch {
	case st.Yanked && st.Reason != "":
		what = "yanked (" + st.Reason + ")"
	case st.Yanked:
		what = "yanked"
	default:
		what = "not yanked"
	}
	if st.Deprecated != "" {
		what += ", deprecated: " + st.Deprecated
	}
	if s.Unchanged {
		return at + " is already " + what
	}
	return at + " is now " + what + " (status " + s.Referrer + ")"
}
