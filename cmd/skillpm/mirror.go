package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

type mirrorFlags struct {
	regFlags
	trustFlags
	jobs    int
	verify  bool
	minTier string
	since   string
	names   string
	// toRegistry is --to-registry, the destination.
	toRegistry string
}

type mirrorJSON struct {
	Source      string              `json:"source"`
	Destination string              `json:"destination"`
	Copied      int                 `json:"copied"`
	Present     int                 `json:"present"`
	Refused     int                 `json:"refused"`
	Older       int                 `json:"older"`
	Failed      int                 `json:"failed"`
	Versions    []mirrorVersionJSON `json:"versions"`
}

type mirrorVersionJSON struct {
	Name            string `json:"name"`
	Version         string `json:"version,omitempty"`
	Digest          string `json:"digest,omitempty"`
	Status          string `json:"status"`
	Referrers       int    `json:"referrers"`
	ReferrersCopied int    `json:"referrersCopied"`
	Tier            string `json:"tier,omitempty"`
	Error           string `json:"error,omitempty"`
}

func newMirrorCmd(g *globals) *cobra.Command {
	var f mirrorFlags
	c := &cobra.Command{
		Use:   "mirror --registry SOURCE --to-registry DEST [NAME...]",
		Short: "Copy skills with their signatures between registries and OCI layouts",
		Long: `Mirror copies skills from SOURCE (--registry; default the configuration's
registry) to DEST (--to-registry), each a registry namespace
(ghcr.io/acme/skills, localhost:5000/skills), oci-layout:DIR, or "embedded":
every version (SemVer tag) with its manifest, blobs and every referrer
(signatures, countersignatures), byte for byte, so digests and signatures
stay valid. Registries with and without the referrers API work both ways.

With no NAME, every skill SOURCE lists is copied: a registry's _catalog, a
layout directory's subdirectories (--names FILE reads names, one a line, for
registries without _catalog, such as GHCR).

What DEST already holds is skipped by digest, so an interrupted mirror is
resumed by running it again. --verify verifies every version at SOURCE against
the trust policy (--policy, --key) and refuses what no signature verifies
for; --min-tier also refuses what is below the tier (it implies --verify).
Refused versions are listed and not copied; the others are. --since TIME
(RFC 3339, or a duration such as 24h meaning that long ago) copies only the
versions with a manifest or referrer created since then, by their
org.opencontainers.image.created annotation (skillpm and cosign write it on
every signature); a version with no such annotation is always considered.

The form of older releases, mirror SOURCE DEST [NAME...], still works when
neither --registry nor --to-registry is given, with a warning; it goes in
the next release.

Exit status: 0 when everything was copied or present; 5 when a version was
refused; 6 when a copy failed (run again to resume).`,
		Example: `  skillpm mirror --registry ghcr.io/acme/skills --to-registry registry.internal/skills --names skills.txt
  skillpm mirror --registry localhost:5000/skills --to-registry oci-layout:./mirror --plain-http --verify --policy marketplace.yaml
  skillpm mirror --registry embedded --to-registry oci-layout:./out web-research --min-tier verified
  skillpm mirror --registry ghcr.io/acme/skills --to-registry registry.internal/skills --since 24h --jobs 16`,
		RunE: func(c *cobra.Command, args []string) error {
			return runMirror(c, g, &f, args)
		},
	}
	c.Flags().IntVar(&f.jobs, "jobs", registry.DefaultMirrorJobs, "copy `N` skills at once")
	c.Flags().BoolVar(&f.verify, "verify", false, "verify every version at the source and refuse what no trusted signature verifies for")
	c.Flags().StringVar(&f.minTier, "min-tier", "", "refuse versions below `TIER` (experimental, community, verified); implies --verify")
	c.Flags().StringVar(&f.since, "since", "", "copy only versions with something created since `TIME` (RFC 3339 or a duration ago, e.g. 24h)")
	c.Flags().StringVar(&f.names, "names", "", "read the skill names from `FILE` (one a line, # comments)")
	bindRegistry(c, &f.registryOption, "`SOURCE` to copy from: a registry namespace, oci-layout:DIR or embedded (default: the configuration's registry)")
	c.Flags().StringVar(&f.toRegistry, "to-registry", "", "`DEST` to copy to: a registry namespace or oci-layout:DIR")
	f.trustFlags.register(c)
	f.addPlainHTTP(c)
	return c
}

// ends picks the source and the destination, and the names: --registry
// (else the configuration's registry) and --to-registry, or, when neither
// flag is given, the first two arguments as older releases took them
// (deprecated: a warning).
func (f *mirrorFlags) ends(g *globals, args []string) (from, to string, names []string, err error) {
	if f.registry == "" && f.toRegistry == "" && len(args) >= 2 {
		deprecatedPositional(g, "mirror SOURCE DEST", "mirror --registry SOURCE --to-registry DEST")
		return args[0], args[1], args[2:], nil
	}
	if f.toRegistry == "" {
		return "", "", nil, classed(errdef.Usage, errors.New("mirror needs a destination: give --to-registry DEST (a registry namespace or oci-layout:DIR)"))
	}
	from = cmp.Or(f.registry, g.config().Registry)
	if from == "" {
		return "", "", nil, classed(errdef.Usage, errors.New("mirror needs a source: give --registry SOURCE (a registry namespace, oci-layout:DIR or embedded), or set registry: in the configuration"))
	}
	return from, f.toRegistry, args, nil
}

// readNames reads a names file: one skill name a line, blank lines and #
// comments ignored.
func readNames(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, classed(errdef.Usage, err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !skill.ValidName(line) {
			return nil, classed(errdef.Usage, fmt.Errorf("%s:%d: %q is not a skill name", path, n, line))
		}
		names = append(names, line)
	}
	return names, sc.Err()
}

// parseSince reads an RFC 3339 time or a duration meaning that long ago.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("--since %q: give an RFC 3339 time (2026-01-02T15:04:05Z), a date or a duration (24h)", s)
	}
	return now.Add(-d), nil
}

func runMirror(c *cobra.Command, g *globals, f *mirrorFlags, args []string) error {
	ctx := c.Context()
	from, r, err := f.request(g, args)
	if err != nil {
		return err
	}
	ef := engineFlags{reg: &f.regFlags, from: from}
	if f.verify || f.minTier != "" {
		ef.trust = &f.trustFlags
	}
	e, err := openEngine(ctx, g, ef)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	if !g.json() && !g.quiet {
		r.Options.OnVersion = func(v registry.MirroredVersion) {
			mu.Lock()
			defer mu.Unlock()
			printMirrored(g, v)
		}
	}
	res, err := e.Mirror(ctx, r)
	if err != nil {
		return mirrorFailure(err)
	}
	return printMirror(g, res)
}

// request checks mirror's flags and builds the engine's request: SOURCE
// (the engine's source, returned as from), DEST and the names (arguments
// and --names).
func (f *mirrorFlags) request(g *globals, args []string) (from string, r engine.MirrorRequest, err error) {
	from, to, names, err := f.ends(g, args)
	if err != nil {
		return "", r, err
	}
	if f.minTier != "" && !tiers.ValidTier(f.minTier) {
		return "", r, classed(errdef.Usage, fmt.Errorf("--min-tier must be experimental, community or verified, not %q", f.minTier))
	}
	if f.jobs < 1 {
		return "", r, classed(errdef.Usage, fmt.Errorf("--jobs must be at least 1"))
	}
	since, err := parseSince(f.since, time.Now())
	if err != nil {
		return "", r, classed(errdef.Usage, err)
	}
	r = engine.MirrorRequest{To: to, Verify: f.verify,
		Options: registry.MirrorOptions{Names: names, Jobs: f.jobs, MinTier: skill.Tier(f.minTier), Since: since}}
	if f.names != "" {
		more, err := readNames(f.names)
		if err != nil {
			return "", r, err
		}
		r.Options.Names = append(r.Options.Names, more...)
	}
	return from, r, nil
}

// mirrorFailure maps mirror's failures to exit codes.
func mirrorFailure(err error) error {
	switch {
	case errors.Is(err, registry.ErrNoCatalog):
		return classed(errdef.Usage, fmt.Errorf("%w: name the skills, or give --names FILE", err))
	}
	return err
}

// printMirror renders a mirror's counts (JSON or a line) and gives a
// mirror with failed or refused versions its exit code.
func printMirror(g *globals, res *registry.MirrorResult) error {
	src, dst := res.From, res.To
	if g.json() {
		j := mirrorJSON{Source: src.String(), Destination: dst.String(), Versions: []mirrorVersionJSON{},
			Copied: res.Count(registry.MirrorCopied), Present: res.Count(registry.MirrorPresent), Refused: res.Count(registry.MirrorRefused),
			Older: res.Count(registry.MirrorOlder), Failed: res.Count(registry.MirrorFailed)}
		for _, v := range res.Versions {
			j.Versions = append(j.Versions, mirrorVersionDoc(v))
		}
		if err := g.writeJSON(j); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(g.stdout, "%s -> %s: %d copied, %d already there, %d refused, %d older, %d failed\n", src, dst,
			res.Count(registry.MirrorCopied), res.Count(registry.MirrorPresent), res.Count(registry.MirrorRefused),
			res.Count(registry.MirrorOlder), res.Count(registry.MirrorFailed))
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("%d versions failed (run the same mirror again to resume): %w", res.Count(registry.MirrorFailed), err)
	}
	if n := res.Count(registry.MirrorRefused); n > 0 {
		return classed(errdef.Trust, fmt.Errorf("%s refused by verification and not copied", plural(n, "version")))
	}
	return nil
}

func mirrorVersionDoc(v registry.MirroredVersion) mirrorVersionJSON {
	j := mirrorVersionJSON{Name: v.Name, Version: v.Version, Digest: v.Digest, Status: string(v.Status),
		Referrers: v.Referrers, ReferrersCopied: v.ReferrersCopied, Tier: string(v.Tier)}
	if v.Err != nil {
		j.Error = v.Err.Error()
	}
	return j
}

func printMirrored(g *globals, v registry.MirroredVersion) {
	at := v.Name
	if v.Version != "" {
		at += "@" + v.Version
	}
	switch v.Status {
	case registry.MirrorRefused, registry.MirrorFailed:
		fmt.Fprintf(g.stderr, "%s %s: %v\n", v.Status, at, v.Err)
	case registry.MirrorCopied:
		tier := ""
		if v.Tier != "" {
			tier = ", " + string(v.Tier)
		}
		fmt.Fprintf(g.stdout, "copied %s (%s, %d of %d signatures copied%s)\n", at, v.Digest, v.ReferrersCopied, v.Referrers, tier)
	default:
		if g.verbose() {
			fmt.Fprintf(g.stdout, "%s %s (%s)\n", v.Status, at, v.Digest)
		}
	}
}
