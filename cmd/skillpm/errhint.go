package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/migrate"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

// maxShownVersions is how many versions a not-found hint lists, newest
// first.
const maxShownVersions = 5

// notFoundHint adds to a resolution failure where skillpm looked: for
// each requirement of m that nothing satisfies, the source searched and
// the versions it has (newest few), or, for a skill it does not have, the
// close names it does have and the syntax of the other kinds of source.
// raw is the failure as the library returned it; err is what the command
// would report (raw mapped to an exit code), returned unchanged when raw
// is not about resolution.
func notFoundHint(ctx context.Context, e *engine.Engine, cat *catalog.Registry, m *resolve.Manifest, raw, err error) error {
	var nse *resolve.NoSolutionError
	if raw == nil || (!errors.As(raw, &nse) && !errors.Is(raw, resolve.ErrNotFound) && !errors.Is(raw, registry.ErrNotFound)) {
		return err
	}
	hints := requirementHints(ctx, e, cat, m, false)
	if len(hints) == 0 {
		return err
	}
	return fmt.Errorf("%w\n\n%s", err, strings.Join(hints, "\n"))
}

// requirementHints describes, for each requirement of m nothing
// published satisfies, what the source has.
func requirementHints(ctx context.Context, e *engine.Engine, cat *catalog.Registry, m *resolve.Manifest, pre bool) []string {
	ns := cat.Namespace()
	var out []string
	for _, r := range m.Skills {
		key, err := ns.Key(r.Name)
		if err != nil {
			continue
		}
		src, name := ns.Split(key)
		vs, err := cat.Versions(ctx, key)
		if err != nil && !errors.Is(err, resolve.ErrNotFound) && !errors.Is(err, registry.ErrNotFound) {
			continue
		}
		set, perr := resolve.ParseRange(resolve.RangeOrAny(r.Range), pre)
		ok := false
		for _, v := range vs {
			ok = ok || (perr == nil && set.Contains(v))
		}
		if ok {
			continue
		}
		if len(vs) == 0 {
			out = append(out, fmt.Sprintf("%s is not published in %s.%s", name, sourceName(src), closeNames(ctx, e, src, name)))
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: no version matches in %s; it has %s.", name, resolve.RangeOrAny(r.Range), sourceName(src), newestVersions(vs)))
	}
	if len(out) > 0 {
		out = append(out, "Other sources: --registry (or registry: in skills.yaml) for bare names, a registry reference (ghcr.io/acme/skills/NAME@^1), a local directory (./NAME), oci-layout:DIR; git sources are written git+https://HOST/OWNER/REPO or github:OWNER/REPO.")
	}
	return out
}

// sourceName says which source was searched, as a user would name it.
func sourceName(src string) string {
	if src == resolve.EmbeddedSource {
		return "the embedded registry"
	}
	return src
}

// newestVersions lists the newest few versions, newest first.
func newestVersions(vs []*semver.Version) string {
	s := append([]*semver.Version(nil), vs...)
	sort.Sort(sort.Reverse(semver.Collection(s)))
	var names []string
	for i, v := range s {
		if i == maxShownVersions {
			names = append(names, fmt.Sprintf("and %d older", len(s)-i))
			break
		}
		names = append(names, v.String())
	}
	return strings.Join(names, ", ")
}

// closeNames suggests the names src holds within a small edit distance of
// name, as " Did you mean a, b?"; "" when it has none or cannot list.
func closeNames(ctx context.Context, e *engine.Engine, src, name string) string {
	res, err := e.SourceNames(ctx, engine.SourceNamesRequest{Source: src})
	if err != nil {
		return ""
	}
	names := res.Names
	if len(names) == 0 {
		return " It holds no skills yet: " + emptySourceNext
	}
	close := suggest(name, names)
	if len(close) == 0 {
		return ""
	}
	return " Did you mean " + strings.Join(close, ", ") + "?"
}

// suggest returns the candidates within edit distance max(2, len/3) of
// name, or containing it, closest first, at most three.
func suggest(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	limit := max(2, len(name)/3)
	var out []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if c == name || seen[c] {
			continue
		}
		seen[c] = true
		d := editDistance(name, c)
		if d <= limit || (len(name) >= 3 && strings.Contains(c, name)) {
			out = append(out, scored{c, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	var names []string
	for i, s := range out {
		if i == 3 {
			break
		}
		names = append(names, s.s)
	}
	return names
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// flagHint ties a library sentinel to the flag or command that gets past
// it. Libraries say what failed and where; only the CLI knows its flags,
// so the hint lives here (the HTTP API shows the library's message alone).
type flagHint struct {
	err  error
	hint string
}

// sentinelHints is the CLI's table of hints by sentinel.
func sentinelHints() []flagHint {
	return []flagHint{
		{registry.ErrImmutable, "--force overwrites a published version on a private registry"},
		{registry.ErrUnsignedIndex, "its maintainer signs it with skillpm index build --sign"},
		{registry.ErrServerPlainHTTP, "for a loopback registry use --plain-http"},
		{install.ErrDrift, "--force replaces the files with the locked content (look at what changed first: the receipt was edited with them)"},
		{registry.ErrOffline, "run it once without --offline to fill the caches"},
		{registry.ErrUnresponsive, "to wait longer: --timeout DURATION, SKILLPM_HTTP_TIMEOUT or http-timeout in config.yaml; -v shows the retries"},
		{registry.ErrUnreachable, "check the registry's address (--registry or the configuration's registry); skillpm doctor checks every configured registry"},
		{registry.ErrUnauthorized, "credentials are read from Docker's config.json (in DOCKER_CONFIG, else ~/.docker) and its credential helpers, where skillpm login stores them"},
		{install.ErrEdited, "--force replaces it; skillpm adopt NAME keeps a copy skillpm did not install and takes it under management"},
		{install.ErrDependedUpon, "--force removes it anyway"},
		{install.ErrLinked, "remove the links first (skillpm remove NAME --host HOST), or --force, which leaves them dangling"},
		{install.ErrDowngrade, "rerun with --allow-downgrade to accept the older version"},
		{install.ErrRepublished, "rerun with --allow-republished to accept the new content"},
		{install.ErrGaiaRefused, "no --grant overrides GAIA's loader; --host HOST installs it for another host, skillpm validate --host gaia checks a skill first"},
		{hosts.ErrUnknownHost, "--root DIR installs into a directory of your choice"},
		{hosts.ErrNoProjectRoot, "install with --scope user, or into a directory with --root DIR"},
		{hosts.ErrNoUserRoot, "install with --scope project, or into a directory with --root DIR"},
		{tiers.ErrSignerChanged, "if the change is expected, rerun with --allow-signer-change"},
		{resolve.ErrLockMismatch, "run skillpm install without --frozen to update the lock"},
		{asf.ErrNoStateRoot, "pass --state-root DIR or --state FILE"},
		{asf.ErrNoSettingsPath, "pass --settings FILE or --scope project"},
		{asf.ErrWorkflowRunning, "--force replaces it"},
		{asf.ErrNotCurrentStep, "--force skips ahead to the step named"},
		{asf.ErrSkillNotFound, "--skills-root DIR searches a directory of skills first"},
		{registry.ErrAttestationNotAttached, "run skillpm audit --sign again"},
		{advisory.ErrRevoked, "skillpm doctor lists the installed copies it names; skillpm quarantine moves them out of the hosts' roots"},
		{registry.ErrNotPublisher, "sign with --key set to a key that signed the version (skillpm verify NAME@VERSION shows its signers)"},
		{registry.ErrNoIndex, "a maintainer builds it with skillpm index build --registry SOURCE (--sign --key K signs it)"},
	}
}

// flagHints returns the CLI hints for err: one per matching sentinel, and
// per trust refusal the flag that would allow it.
func flagHints(err error) []string {
	var hints []string
	add := func(h string) {
		if h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	if refused, ok := errors.AsType[*tiers.RefusedError](err); ok {
		for _, r := range refused.Refusals {
			add(refusalHint(r))
		}
	}
	if dep, ok := errors.AsType[*tiers.ExperimentalDependencyError](err); ok && dep.Skill() != "" {
		add(experimentalPathHint(dep, err))
	}
	if uh, ok := errors.AsType[*hosts.UnknownHostError](err); ok {
		if s := suggest(uh.ID, uh.Known); len(s) > 0 {
			add("did you mean --host " + strings.Join(s, ", --host ") + "?")
		}
	}
	if _, ok := errors.AsType[*install.AuditRefusedError](err); ok {
		add("skillpm audit shows every finding; --allow-audit-findings installs anyway")
	}
	if nm, ok := errors.AsType[*migrate.NotMigratableError](err); ok && nm.Reason == migrate.ReasonWrongFormat {
		add("--format auto detects the format")
	}
	for _, h := range sentinelHints() {
		if errors.Is(err, h.err) {
			add(h.hint)
		}
	}
	return hints
}

// refusalHint names the flag that would allow one trust refusal.
func refusalHint(r tiers.Refusal) string {
	grant := "--grant " + r.Grant
	switch {
	case errors.Is(r.Kind, tiers.ErrNeedsGrant) && r.Grant != "":
		return "grant it with " + grant + " (--yes does not cover it)"
	case errors.Is(r.Kind, tiers.ErrNeedsConsent) && r.Grant != "":
		return "rerun with " + grant + " or --yes"
	case errors.Is(r.Kind, tiers.ErrNeedsConsent):
		return "rerun with --yes"
	case errors.Is(r.Kind, tiers.ErrExperimental):
		return "skillpm verify shows its signers; --allow-experimental installs it on purpose"
	}
	return ""
}

// withFlagHints appends the CLI hints for err to msg, after a blank line
// (where --output json reads the hint from).
func withFlagHints(msg string, err error) string {
	hints := flagHints(err)
	if len(hints) == 0 {
		return msg
	}
	sep := "\n\n"
	if strings.Contains(msg, "\n\n") {
		sep = "\n"
	}
	return msg + sep + "hint: " + strings.Join(hints, "\nhint: ")
}

// experimentalPathHint is the one command that installs, on purpose,
// every skill on the path to an experimental dependency: each named, so
// that --allow-experimental covers it. In a project that is add (which
// records them in the manifest, so the next add or install keeps them);
// elsewhere install, into the same roots.
func experimentalPathHint(dep *tiers.ExperimentalDependencyError, err error) string {
	_, project := errors.AsType[*inProject](err)
	var names []string
	for _, p := range dep.Path {
		name, version, _ := strings.Cut(p, "@")
		switch {
		case project && version != "":
			names = append(names, name+"@^"+version)
		case project:
			names = append(names, name)
		default:
			names = append(names, p)
		}
	}
	if project {
		return "to install them on purpose, review them and run: skillpm add " + strings.Join(names, " ") + " --allow-experimental"
	}
	// The roots, source and policy flags of the command that failed
	// still apply; the error does not carry them.
	return "to install them on purpose, review them and run: skillpm install " + strings.Join(names, " ") + " --allow-experimental (with this command's other flags)"
}

// emptySourceNext is the next step from a source that holds no skills:
// the three ways skills get to a new user.
const emptySourceNext = "publish one into it (skillpm publish DIR), name a registry that has some (--registry SOURCE, or registry: in config.yaml), or install from git or a folder (skillpm install github:OWNER/REPO, skillpm install ./DIR)."
