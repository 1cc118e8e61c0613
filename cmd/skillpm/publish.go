package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/spf13/cobra"
)

// regFlags are the flags the registry commands (publish, info, pull,
// login, pack) share.
type regFlags struct {
	plainHTTP bool
	registryOption
	// resolution is the engine's (Options.Resolution): --pre (addRegistry,
	// outdated) and, for install, add and update, --no-index.
	resolution engine.Resolution
	offline    bool
}

// addPlainHTTP registers --plain-http.
func (f *regFlags) addPlainHTTP(c *cobra.Command) {
	c.Flags().BoolVar(&f.plainHTTP, "plain-http", false, "talk plain HTTP to a loopback registry (localhost, 127.0.0.1, ::1)")
}

// addOffline registers --offline.
func (f *regFlags) addOffline(c *cobra.Command) {
	c.Flags().BoolVar(&f.offline, "offline", false, "ask no registry anything: answer from the caches (content cache, lock, receipts, git cache) and fail naming what is not there")
}

// addRegistry registers --registry (the source of bare names) and --pre.
func (f *regFlags) addRegistry(c *cobra.Command) {
	bindRegistry(c, &f.registryOption, "")
	c.Flags().BoolVar(&f.resolution.Prerelease, "pre", false, "let ranges and the newest-version pick match pre-releases")
}

// regClient returns a registry client with progress on a terminal, the
// timeouts of --timeout (else $SKILLPM_HTTP_TIMEOUT, else the
// configuration's http-timeout) and its retries logged with -v or
// SKILLPM_LOG=debug.
func regClient(g *globals, f *regFlags) (*registry.Client, error) {
	opts := registry.Options{PlainHTTP: f.plainHTTP, PlainHTTPRegistries: g.config().PlainHTTP, Mirrors: g.config().Mirrors, Progress: regProgress(g),
		UserAgent: "skillpm/" + skillpmVersion(), Logger: regLogger(g), Trace: regTrace(g), Offline: f.offline}
	d := g.config().HTTPTimeout
	if g.timeout != "" {
		var err error
		if d, err = registry.ParseTimeout(g.timeout); err != nil {
			return nil, classed(errdef.Usage, fmt.Errorf("--timeout: %w", err))
		}
	}
	if d > 0 {
		opts.Timeouts = registry.TimeoutsFor(d)
	}
	c, err := registry.New(opts)
	if err != nil {
		return nil, classed(errdef.Usage, err)
	}
	return c, nil
}

// regLogger passes what the registry client logs to the output layer:
// its retries as decisions (-v or SKILLPM_LOG=debug), and on a terminal
// what a slow registry is being waited for as a note (not with -q);
// nil when neither would be shown.
func regLogger(g *globals) *slog.Logger {
	o := g.o()
	if o.level < levelVerbose && (o.level < levelNormal || !isTerminal(g.stderr)) {
		return nil
	}
	return slog.New(&outputHandler{o: o})
}

// regTrace passes every HTTP request the registry client sends to the
// output layer (-vv or SKILLPM_LOG=trace); nil below that level.
func regTrace(g *globals) registry.TraceFunc {
	o := g.o()
	if o.level < levelTrace {
		return nil
	}
	return func(rt registry.RequestTrace) {
		status := fmt.Sprint(rt.Status)
		if rt.Err != nil {
			status = "failed: " + rt.Err.Error()
		}
		o.Trace(fmt.Sprintf("%s %s -> %s (%s)", rt.Method, rt.URL, status, rt.Duration.Round(time.Millisecond)))
	}
}

// outputHandler is a slog.Handler writing to the output layer: records
// at Warn and above as notes, the others as decisions, each as its
// message and its attributes (key=value).
type outputHandler struct {
	o     *output
	attrs []slog.Attr
}

func (h *outputHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *outputHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if r.Level >= slog.LevelWarn {
		h.o.Note(b.String())
	} else {
		h.o.Decision(b.String())
	}
	return nil
}

func (h *outputHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &outputHandler{o: h.o, attrs: append(slices.Clip(h.attrs), as...)}
}

func (h *outputHandler) WithGroup(string) slog.Handler { return h }

// regProgress draws the bytes of the client's transfers on the run's
// progress line (a terminal's stderr, without -q); nil otherwise.
func regProgress(g *globals) registry.ProgressFunc {
	if g.progress == nil {
		return nil
	}
	return g.progress.Blob
}

// regBytes formats a byte count for people.
func regBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// publishFailure renders what a publish got to (the build's diagnostics,
// the audit) and maps its failure to an exit code: 3 for an invalid
// skill, 5 for an audit block, 1 for an audit that did not run, else
// its class's.
func publishFailure(g *globals, dir string, out *engine.PublishResult, allowAudit bool, err error) error {
	var be *engine.BuildError
	var ve *skill.ValidationError
	switch {
	case errors.As(err, &be) && errors.As(be.Err, &ve):
		printDiagnostics(g.stderr, ve.Diagnostics)
		return classed(errdef.Validation, fmt.Errorf("%s: %s, not published; fix and check with skillpm validate %s", dir, plural(len(ve.Diagnostics.Errors()), "error"), dir))
	case errors.As(err, &be):
		return be.Err
	}
	if out != nil && !g.quiet {
		printDiagnostics(g.stderr, out.Artifact.Diagnostics)
	}
	if out != nil && out.Audit != nil {
		if gerr := printAuditGate(g, out.Artifact, out.Audit, allowAudit); gerr != nil {
			return gerr
		}
	}
	if out != nil && out.Audit == nil {
		return classed(errdef.Internal, err)
	}
	return err
}

// regBuild builds the artifact of dir, printing validation diagnostics
// (warnings included) on stderr. An invalid skill exits 3.
func regBuild(c *cobra.Command, g *globals, dir string, noVCS bool) (*registry.Artifact, error) {
	created, err := registry.SourceDateEpoch(os.Getenv)
	if err != nil {
		return nil, err
	}
	warn := func(w archive.PackWarning) { g.o().Warn(w.Message) }
	a, err := registry.Build(c.Context(), dir, registry.BuildOptions{Created: created, NoVCS: noVCS, PackWarn: warn})
	if err != nil {
		var ve *skill.ValidationError
		if errors.As(err, &ve) {
			printDiagnostics(g.stderr, ve.Diagnostics)
			return nil, classed(errdef.Validation, fmt.Errorf("%s: %s, not published; fix and check with skillpm validate %s", dir, plural(len(ve.Diagnostics.Errors()), "error"), dir))
		}
		return nil, err
	}
	if !g.quiet {
		printDiagnostics(g.stderr, a.Diagnostics)
	}
	return a, nil
}

type publishFlags struct {
	regFlags
	force bool
	noVCS bool
	sign  signFlags
	// allowAudit publishes despite a block audit verdict.
	allowAudit bool
	// recursive publishes every skill under DIR (or in a git reference).
	recursive bool
}

type publishJSON struct {
	Name       string      `json:"name"`
	Version    string      `json:"version"`
	Repository string      `json:"repository"`
	Tag        string      `json:"tag"`
	Digest     string      `json:"digest"`
	Tree       string      `json:"tree"`
	Unchanged  bool        `json:"unchanged"`
	Replaced   string      `json:"replaced,omitempty"`
	Signature  *signedJSON `json:"signature,omitempty"`
}

func newPublishCmd(g *globals) *cobra.Command {
	var f publishFlags
	c := &cobra.Command{
		Use:   "publish DIR",
		Short: "Validate, pack and push a skill",
		Long: `Publish validates the skill in DIR strictly (a version is required; 0.0.0
never publishes), packs it reproducibly and pushes it as an OCI artifact,
tagged with its version, to SOURCE: a registry namespace
(ghcr.io/acme/skills, localhost:5000/skills) or oci-layout:DIR. Without --to
it goes to the embedded registry ($XDG_DATA_HOME/skillpm/registry).

Published versions are immutable: the same version with other content is
refused (--force overwrites, for private registries, and says what it
replaced); the same content again changes nothing. Credentials come from
Docker's config and credential helpers (skillpm login). When DIR is in a git
checkout, the origin URL and commit are recorded; SOURCE_DATE_EPOCH sets the
created time. --sign with --key K or --keyless signs the published version
(see skillpm sign); a wrong passphrase stops the publish before any push.

The packed files are audited first (see skillpm audit) at the tier the skill
claims: findings are printed on stderr, and a block verdict refuses the
publish (exit 5, nothing pushed) unless --allow-audit-findings.

With -r, every skill under DIR is published in one run; a git reference
(see skillpm install --help) publishes every skill it holds, recording the
repository (credentials removed) and commit. Versions already published
with the same content are skipped; the others are published and reported,
and the run goes on past a failing skill, exiting non-zero at the end.

Exit status: 3 when the skill is invalid, 5 when the audit blocks it, 6 when
the registry fails after retries.`,
		Example: `  skillpm publish ./web-research
  skillpm publish ./web-research --registry ghcr.io/acme/skills
  skillpm publish ./web-research --registry localhost:5000/skills --plain-http
  skillpm publish ./web-research --registry oci-layout:./bundle
  skillpm publish ./web-research --sign --key skillpm.key
  skillpm publish -r ./skills --registry ghcr.io/acme/skills
  skillpm publish github:acme/skills@v1.2.0 --registry ghcr.io/acme/skills`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runPublish(c, g, &f, args[0])
		},
	}
	bindRegistry(c, &f.registryOption, "`SOURCE` to publish to: a registry namespace or oci-layout:DIR (default: the configuration's registry, else the embedded one)", "to")
	c.Flags().BoolVar(&f.force, "force", false, "overwrite a version already published with other content")
	c.Flags().BoolVar(&f.noVCS, "no-vcs", false, "do not record the git origin and commit")
	c.Flags().BoolVar(&f.allowAudit, "allow-audit-findings", false, "publish even when the audit blocks the skill at the tier it claims")
	c.Flags().BoolVarP(&f.recursive, "recursive", "r", false, "publish every skill under DIR, or in a git reference, in one run")
	f.addPlainHTTP(c)
	f.sign.register(c, true)
	return c
}

func runPublish(c *cobra.Command, g *globals, f *publishFlags, dir string) error {
	signOpts, err := f.sign.publishOptions(c.Context(), g)
	if err != nil {
		return err
	}
	e, err := openEngine(c.Context(), g, engineFlags{reg: &f.regFlags, from: f.registry, item: func(done, total int, it *engine.PublishItem) {
		name, version := it.Path, ""
		if it.PublishResult != nil && it.Artifact != nil {
			name, version = it.Artifact.Skill.Name, it.Artifact.Skill.Version
		}
		g.progress.Item("publishing", done, total, name, version)
	}})
	if err != nil {
		return err
	}
	if f.recursive || source.LooksGit(dir) {
		res, err := e.PublishAll(c.Context(), engine.PublishRequest{Dir: dir, Force: f.force, NoVCS: f.noVCS, AllowAuditFindings: f.allowAudit, Sign: signOpts})
		if err != nil {
			mapped, _ := engineErr(g, sourceErr(g, f.registry, err))
			return mapped
		}
		return printPublishAll(g, res, f.allowAudit)
	}
	out, err := e.Publish(c.Context(), engine.PublishRequest{Dir: dir, Force: f.force, NoVCS: f.noVCS, AllowAuditFindings: f.allowAudit, Sign: signOpts})
	if gerr := publishFailure(g, dir, out, f.allowAudit, sourceErr(g, f.registry, err)); gerr != nil {
		return gerr
	}
	return printPublished(g, out)
}

// publishOutput is one published version's JSON document.
func publishOutput(out *engine.PublishResult) publishJSON {
	a, res := out.Artifact, out.PublishResult
	j := publishJSON{Name: a.Skill.Name, Version: a.Skill.Version, Repository: res.Location.String(), Tag: res.Tag,
		Digest: res.Descriptor.Digest.String(), Tree: a.Pack.TreeHash, Unchanged: res.Unchanged, Signature: out.Signed}
	if res.Replaced != nil {
		j.Replaced = res.Replaced.Digest.String()
	}
	return j
}

// printPublished renders a publish: JSON, or what was pushed (or found
// there already) and the signature.
func printPublished(g *globals, out *engine.PublishResult) error {
	if g.json() {
		return g.writeJSON(publishOutput(out))
	}
	name, version, res := out.Artifact.Skill.Name, out.Artifact.Skill.Version, out.PublishResult
	switch {
	case res.Unchanged:
		fmt.Fprintf(g.stdout, "%s@%s is already published to %s as %s; nothing to do\n", name, version, res.Location, res.Descriptor.Digest)
	case res.Replaced != nil:
		fmt.Fprintf(g.stdout, "published %s@%s to %s as %s, replacing %s (--force)\n", name, version, res.Location, res.Descriptor.Digest, res.Replaced.Digest)
	default:
		fmt.Fprintf(g.stdout, "published %s@%s to %s as %s\n", name, version, res.Location, res.Descriptor.Digest)
	}
	if out.Signed != nil {
		warnJunk(g.stderr, out.Signed)
		printSigned(g.stdout, out.Signed, "signed")
	}
	return nil
}
