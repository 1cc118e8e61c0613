package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/advisory"
	"github.com/spf13/cobra"
)

type infoFlags struct {
	regFlags
	rootFlags
	manifest bool
}

func newInfoCmd(g *globals) *cobra.Command {
	var f infoFlags
	c := &cobra.Command{
		Use:   "info REF|DIR|NAME",
		Short: "Describe a published, installed or local skill",
		Long: `Info describes a skill. For a reference (web-research, web-research@^1,
ghcr.io/acme/skills/web-research@1.2.0, oci-layout:DIR/web-research) it reads
the published manifest: version, digest, tier, permissions, dependencies,
tree hash, annotations, and the versions available; nothing but the manifest
(and, for artifacts pushed by other tools, the config) is downloaded. Bare
names are looked up in --registry, else the embedded registry.

For an existing directory it reads the SKILL.md there: name, version, tier,
permissions, dependencies and tools.

For the NAME of a skill skillpm installed in the searched roots (every
host's project and user roots; --host, --scope, --root narrow them) it
reads the receipts: version, tier and claimed tier, source, digest, tree
(and whether the files were edited), grants and what granted them,
signers, dependencies and dependents, for each root that has it.

Precedence: an existing directory, else an installed skill, else a
published reference. To describe the published skill of an installed
name, give a version or range (NAME@^1) or --registry.

--manifest prints the manifest exactly as stored.`,
		Example: `  skillpm info web-research
  skillpm info web-research@^1 --output json
  skillpm info localhost:5000/skills/web-research@1.0.0 --plain-http
  skillpm info ./web-research
  skillpm info fix --host claude --output json`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runInfo(c, g, &f, args[0])
		},
	}
	c.Flags().BoolVar(&f.manifest, "manifest", false, "print the manifest JSON exactly as stored")
	f.addRegistry(c)
	f.addPlainHTTP(c)
	f.rootFlags.register(c)
	return c
}

// infoSkillJSON is what info prints of any skill, published or a folder:
// the first keys of both documents.
type infoSkillJSON struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	License     string   `json:"license,omitempty"`
	Tier        string   `json:"tier"`
	Permissions []string `json:"permissions"`
}

type infoJSON struct {
	infoSkillJSON
	Requires    map[string]string  `json:"requires"`
	Tree        string             `json:"tree,omitempty"`
	Source      string             `json:"source,omitempty"`
	Revision    string             `json:"revision,omitempty"`
	Created     string             `json:"created,omitempty"`
	FromConfig  []string           `json:"fromConfig,omitempty"`
	Repository  string             `json:"repository"`
	Digest      string             `json:"digest"`
	Size        int64              `json:"size"`
	Layer       infoLayerJSON      `json:"layer"`
	Versions    []string           `json:"versions"`
	Yanked      []string           `json:"yanked,omitempty"`
	Status      *registry.Status   `json:"status,omitempty"`
	Advisories  []advisory.Advised `json:"advisories,omitempty"`
	Annotations map[string]string  `json:"annotations"`
	Manifest    json.RawMessage    `json:"manifest"`
}

type infoLayerJSON struct {
	Title  string `json:"title"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

func runInfo(c *cobra.Command, g *globals, f *infoFlags, arg string) error {
	ctx := c.Context()
	e, err := openEngine(ctx, g, engineFlags{reg: &f.regFlags, from: f.registry, rf: &f.rootFlags, lenientEnv: true})
	if err != nil {
		return err
	}
	d, err := e.Describe(ctx, engine.DescribeRequest{Arg: arg, ManifestOnly: f.manifest})
	switch {
	case d != nil && d.Local != nil:
		return printInfoLocal(g, d.Local, err)
	case err != nil:
		return nameSuggestion(ctx, e, arg, refErr(g, f.registry, err))
	case d.Installed != nil:
		return printInfoInstalled(g, arg, d.Installed)
	case f.manifest:
		_, err := fmt.Fprintf(g.stdout, "%s\n", d.Published.Manifest.Raw)
		return err
	}
	return printInfo(g, d.Published, d.Advisories)
}

// nameSuggestion adds to a bare name's not-found error the names closest
// to it that the source of bare names publishes or the roots hold, as
// cobra does for commands: "did you mean web-research?".
func nameSuggestion(ctx context.Context, e *engine.Engine, arg string, err error) error {
	// A skill name alone: a name with a version, a source or a path is
	// not a misspelt one.
	if !skill.ValidName(arg) || !errors.Is(err, registry.ErrNotFound) {
		return err
	}
	names := installedNames()
	if published, nerr := e.SourceNames(ctx, engine.SourceNamesRequest{}); nerr == nil {
		names = append(names, published.Names...)
	}
	if s := suggest(arg, names); len(s) > 0 {
		return fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, ", "))
	}
	return err
}

// refErr words the engine's refusals of a published reference the way
// the command line names things: the flag (--registry, given as
// registry) or configuration a bad source came from. (The engine's
// refusal of a directory names the command that publishes it.)
func refErr(g *globals, registryFlag string, err error) error {
	switch {
	case !errors.Is(err, engine.ErrInvalidRequest):
	case errors.Is(err, registry.ErrInvalidRef):
		return sourceErr(g, registryFlag, err)
	}
	return rootsErr(g, err)
}

// sourceErr names where a source the engine could not parse came from:
// --registry when given (registryFlag), else the configuration's
// registry. Other errors are returned as they are.
func sourceErr(g *globals, registryFlag string, err error) error {
	if !errors.Is(err, engine.ErrInvalidRequest) || !errors.Is(err, registry.ErrInvalidRef) {
		return err
	}
	what := "--registry"
	if registryFlag == "" {
		what = "registry in " + g.config().File
	}
	return fmt.Errorf("%s: %w", what, err)
}

// printInfo renders a published version and the obeyed advisories that
// name it.
func printInfo(g *globals, info *registry.Published, advised []advisory.Advised) error {
	repo, m := info.Repository, info.Manifest
	versions := make([]string, len(info.Versions))
	shown := make([]string, len(info.Versions))
	for i, v := range info.Versions {
		versions[i], shown[i] = v.String(), v.String()
		if slices.Contains(info.Yanked, v.Original()) {
			shown[i] += " (yanked)"
		}
	}
	var status *registry.Status
	if st := info.Status; st != nil && st.Signer != nil {
		status = &st.Status
	}
	md, layer := m.Metadata, m.Layer()
	if g.json() {
		j := infoJSON{infoSkillJSON: infoSkillJSON{Name: md.Name, Version: md.Version, Description: md.Description, License: md.License,
			Tier: string(md.Tier), Permissions: md.Permissions}, Requires: md.Requires, Tree: md.Tree, Source: md.Source, Revision: md.Revision,
			Created: md.Created, FromConfig: md.FromConfig, Repository: repo.Location().String(),
			Digest: m.Descriptor.Digest.String(), Size: m.Descriptor.Size,
			Layer:    infoLayerJSON{Title: layer.Annotations["org.opencontainers.image.title"], Digest: layer.Digest.String(), Size: layer.Size},
			Versions: versions, Yanked: info.Yanked, Status: status, Advisories: advised, Annotations: m.OCI.Annotations, Manifest: m.Raw}
		if j.Permissions == nil {
			j.Permissions = []string{}
		}
		if j.Annotations == nil {
			j.Annotations = map[string]string{}
		}
		return g.writeJSON(j)
	}
	w := g.stdout
	fmt.Fprintf(w, "%s %s\n", termText(md.Name), termText(md.Version))
	if g.quiet {
		// -q: the name and the version the reference resolved to.
		return nil
	}
	row := func(k, v string) { fmt.Fprintf(w, "  %-13s %s\n", k+":", termText(v)) }
	row("description", md.Description)
	row("repository", repo.Location().String())
	row("digest", m.Descriptor.Digest.String())
	row("tier", string(md.Tier)+" (claimed)")
	if md.License != "" {
		row("license", md.License)
	}
	row("permissions", listOrNone(md.Permissions))
	row("dependencies", requiresText(md.Requires))
	if md.Tree != "" {
		row("tree", md.Tree)
	} else {
		row("tree", "(none: the unpacked files cannot be checked)")
	}
	row("layer", fmt.Sprintf("%s, %s, %s", layer.Annotations["org.opencontainers.image.title"], regBytes(layer.Size), layer.Digest))
	if md.Source != "" {
		row("source", md.Source)
	}
	if md.Revision != "" {
		row("revision", md.Revision)
	}
	if md.Created != "" {
		row("created", md.Created)
	}
	if len(md.FromConfig) > 0 {
		row("from config", strings.Join(md.FromConfig, ", ")+" (no skillpm annotations: pushed by another tool)")
	}
	if status != nil && status.Yanked {
		row("yanked", "yes"+parenthesized(status.Reason)+": no new resolution chooses it")
	}
	if status != nil && status.Deprecated != "" {
		row("deprecated", status.Deprecated)
	}
	for _, a := range advised {
		row("advisory", a.String())
	}
	row("versions", strings.Join(shown, ", "))
	if len(m.OCI.Annotations) > 0 {
		fmt.Fprintln(w, "  annotations:")
		keys := make([]string, 0, len(m.OCI.Annotations))
		for k := range m.OCI.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "    %s=%s\n", termText(k), termText(m.OCI.Annotations[k]))
		}
	}
	return nil
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}

func requiresText(req map[string]string) string {
	if len(req) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(req))
	for n := range req {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + req[n]
	}
	return strings.Join(parts, ", ")
}

type infoDirJSON struct {
	Dir string `json:"dir"`
	infoSkillJSON
	Dependencies []skill.Dependency `json:"dependencies"`
	Tools        []string           `json:"tools"`
	Valid        bool               `json:"valid"`
}

// printInfoLocal renders a skill directory read leniently; err is
// Describe's (the skill could not be read at all).
func printInfoLocal(g *globals, l *skill.Result, err error) error {
	s, ds, dir := l.Skill, l.Diagnostics, l.Dir
	if err != nil {
		printDiagnostics(g.stderr, ds)
		return err
	}
	deps := s.Dependencies()
	if g.json() {
		j := infoDirJSON{Dir: dir, infoSkillJSON: infoSkillJSON{Name: s.Name, Version: s.Version, Description: s.Description,
			License: s.License, Tier: string(s.Tier()), Permissions: s.PermissionStrings()}, Dependencies: deps, Tools: s.ToolNames(), Valid: !ds.HasErrors()}
		if j.Dependencies == nil {
			j.Dependencies = []skill.Dependency{}
		}
		return g.writeJSON(j)
	}
	printInfoDir(g.stdout, s, deps)
	if ds.HasErrors() {
		printDiagnostics(g.stderr, ds.Errors())
		return classed(errdef.Validation, errors.New(dir+": the skill has errors (shown above)"))
	}
	return nil
}

func printInfoDir(w io.Writer, s *skill.Skill, deps []skill.Dependency) {
	version := s.Version
	if version == "" {
		version = "(no version)"
	}
	fmt.Fprintf(w, "%s %s\n", termText(s.Name), termText(version))
	row := func(k, v string) { fmt.Fprintf(w, "  %-13s %s\n", k+":", termText(v)) }
	row("description", s.Description)
	row("directory", s.Dir)
	if c := s.Claim(); c != "" {
		row("tier", string(c)+" (claimed)")
	} else {
		row("tier", "no claim (the trust policy decides)")
	}
	if s.License != "" {
		row("license", s.License)
	}
	row("permissions", listOrNone(s.PermissionStrings()))
	var ds []string
	for _, d := range deps {
		t := d.Name + " " + d.Range
		if d.Implicit {
			t += " (implicit: an ASF call)"
		}
		ds = append(ds, t)
	}
	row("dependencies", listOrNone(ds))
	row("tools", listOrNone(s.ToolNames()))
}

// printInfoInstalled renders the installed copies of the skill name.
func printInfoInstalled(g *globals, name string, found []install.Installed) error {
	if g.json() {
		return g.writeJSON(map[string]any{"name": name, "installed": found})
	}
	w := g.stdout
	for i, in := range found {
		if i > 0 && !g.quiet {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s (installed)\n", termText(in.Name), termText(in.Version))
		if g.quiet {
			continue
		}
		row := func(k, v string) { fmt.Fprintf(w, "  %-13s %s\n", k+":", termText(v)) }
		row("root", fmt.Sprintf("%s (%s %s)", in.Root.Dir, in.Root.Host, in.Root.Scope))
		switch {
		case in.IsLink():
			row("placed", "link to "+in.Link)
		case len(in.LinkedFrom) > 0:
			row("placed", "copy, linked from "+strings.Join(in.LinkedFrom, ", "))
		default:
			row("placed", "copy")
		}
		if len(in.ReadBy) > 0 {
			row("read by", strings.Join(in.ReadBy, ", "))
		}
		tier := string(in.Tier)
		if in.Claimed != "" {
			tier += " (claims " + string(in.Claimed) + ")"
		}
		row("tier", tier)
		switch {
		case in.Source != "" && in.LocalPath != "":
			row("source", in.Source+" (built from "+in.LocalPath+")")
		case in.Source != "":
			row("source", in.Source)
		default:
			row("source", in.LocalPath+" (local directory)")
		}
		if in.Requested != "" {
			row("requested", in.Requested)
		} else {
			row("requested", "(installed as a dependency)")
		}
		row("digest", dash(in.Digest))
		tree := in.Tree
		switch {
		case in.Missing:
			tree += " (MISSING: the directory is gone)"
		case in.Drift != "":
			tree += " (DRIFT: " + in.Drift + "; install --frozen says what changed)"
		case in.Edited:
			tree += " (EDITED: the files differ; install --force restores them)"
		default:
			tree += " (files match)"
		}
		row("tree", tree)
		grants := make([]string, 0, len(in.Grants))
		for _, gr := range in.Grants {
			grants = append(grants, gr.Permission+" (by "+gr.By+")")
		}
		row("grants", listOrNone(grants))
		signers := make([]string, 0, len(in.Signers))
		for _, id := range in.Signers {
			signers = append(signers, id.String())
		}
		row("signers", listOrNone(signers))
		row("dependencies", requiresText(in.Dependencies))
		row("dependents", listOrNone(in.Dependents))
		if in.InstalledAt != "" {
			row("installed at", in.InstalledAt)
		}
		if in.ShadowedBy != "" {
			row("shadowed by", in.ShadowedBy)
		}
	}
	return nil
}
