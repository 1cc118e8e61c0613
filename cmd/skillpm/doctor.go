package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
	"github.com/spf13/cobra"
)

// skillpmEnv are skillpm's own environment variables that change where it
// reads and writes, or how; the hosts' own (CLAUDE_CONFIG_DIR, CODEX_HOME,
// ...) come from the hosts table (envOverrides).
var skillpmEnv = []string{"SKILLPM_CONFIG", "SKILLPM_CACHE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "SOURCE_DATE_EPOCH", "SKILLPM_PASSWORD"}

// envOverrides lists skillpm's variables and every variable the hosts
// table says moves a host's roots, sorted, once each.
func envOverrides(t *hosts.Table) []string {
	seen := map[string]bool{}
	out := slices.Clone(skillpmEnv)
	for _, k := range out {
		seen[k] = true
	}
	for _, h := range t.Hosts() {
		for _, d := range append(slices.Clone(h.User), h.Project...) {
			if d.Env != "" && !seen[d.Env] {
				seen[d.Env] = true
				out = append(out, d.Env)
			}
		}
	}
	sort.Strings(out)
	return out
}

type doctorRoot struct {
	Host     string   `json:"host"`
	Scope    string   `json:"scope"`
	Dir      string   `json:"dir"`
	ReadBy   string   `json:"read_by"`
	Exists   bool     `json:"exists"`
	Skills   int      `json:"skills"`
	Journal  bool     `json:"pending_journal"`
	Staged   []string `json:"pending_staging,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

type doctorReport struct {
	Schema     string            `json:"schema"`
	Config     string            `json:"config"`
	Host       string            `json:"default_host"`
	Env        map[string]string `json:"env"`
	Policy     string            `json:"policy"`
	Registries []doctorRegistry  `json:"registries"`
	Roots      []doctorRoot      `json:"roots"`
	Project    *doctorProject    `json:"project,omitempty"`
	Problems   []string          `json:"problems"`
}

type doctorRegistry struct {
	Source    string `json:"source"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

type doctorProject struct {
	Manifest string   `json:"manifest"`
	Lock     string   `json:"lock"`
	Drift    []string `json:"drift"`
}

func newDoctorCmd(g *globals) *cobra.Command {
	var f regFlags
	var policy string
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the setup: roots per host, environment, policy, registries, pending work, lock drift",
		Long: `Doctor prints what skillpm would use here and what is wrong with it:
every host's discovery roots (which agent reads them, how many skills
skillpm installed there), the environment variables in effect, the
configuration and trust policy files in effect, whether the configured
and project registries answer, transactions a crash left pending, and, in
a project, where the installed skills differ from skills.lock.

Exit status: 0 when nothing is wrong, 1 when something is (each problem
is listed with what to do).`,
		Example: `  skillpm doctor
  skillpm doctor --output json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			rep := doctorReport{Schema: schemaOf("doctor"), Env: map[string]string{}, Problems: []string{}, Registries: []doctorRegistry{}, Roots: []doctorRoot{}}
			rep.Config = g.config().File
			if rep.Config == "" {
				rep.Config = "(none: defaults)"
			}
			env, err := processEnv()
			if err != nil {
				// A user hosts file that does not load is what doctor is
				// for: say so, and go on with the built-in table.
				rep.Problems = append(rep.Problems, err.Error())
				env = osEnv()
			}
			host, err := chooseHost(g, env)
			if err != nil {
				rep.Host = "(ambiguous)"
				rep.Problems = append(rep.Problems, err.Error())
			} else {
				rep.Host = string(host)
			}
			for _, k := range envOverrides(env.Table()) {
				if v, ok := os.LookupEnv(k); ok {
					if k == "SKILLPM_PASSWORD" {
						v = "(set)"
					}
					rep.Env[k] = v
				}
			}
			if p := tiers.Find(policy, os.Getenv, os.Stat); p != "" {
				rep.Policy = p
				if _, err := tiers.Load(ctx, p); err != nil {
					rep.Problems = append(rep.Problems, fmt.Sprintf("policy %s: %v", p, err))
				}
			} else {
				rep.Policy = "(built-in default: nothing is verified until a policy trusts a signer; see skillpm policy init)"
			}
			for _, r := range install.AllSearchRoots(env) {
				dr := doctorRoot{Host: string(r.Host), Scope: string(r.Scope), Dir: r.Dir, ReadBy: hostName(env.Table(), r.Host)}
				if _, err := os.Stat(r.Dir); err == nil {
					dr.Exists = true
				}
				if rec, err := install.ReadReceipts(r.Dir); err != nil {
					dr.Problems = append(dr.Problems, err.Error())
				} else {
					dr.Skills = len(rec.Skills)
				}
				pend, err := install.PendingIn(r.Dir)
				if err != nil {
					dr.Problems = append(dr.Problems, err.Error())
				}
				staged, err := install.Staged(r.Dir)
				if err != nil {
					dr.Problems = append(dr.Problems, err.Error())
				}
				dr.Journal, dr.Staged = pend != nil, staged
				switch {
				case pend != nil:
					dr.Problems = append(dr.Problems, pend.String())
				case len(staged) > 0:
					dr.Problems = append(dr.Problems, "an interrupted transaction left staging directories: the next install, update or remove here discards them")
				}
				for _, p := range dr.Problems {
					rep.Problems = append(rep.Problems, r.Dir+": "+p)
				}
				rep.Roots = append(rep.Roots, dr)
			}
			client, err := regClient(g, &f)
			if err != nil {
				return err
			}
			sources := []string{g.config().Registry}
			if hasProject("") {
				p, err := openProject(ctx, "", "")
				if err != nil {
					rep.Problems = append(rep.Problems, err.Error())
				} else {
					if p.m.Registry != "" {
						if src, err := resolve.CanonicalSource(p.m.Registry, p.m.Dir); err == nil {
							sources = append(sources, src)
						}
					}
					dp := &doctorProject{Manifest: p.mpath, Lock: p.lpath, Drift: []string{}}
					if roots, err := projectRoots(g, &rootFlags{}, p.m); err != nil {
						rep.Problems = append(rep.Problems, err.Error())
					} else {
						dp.Drift = lockDrift(p, roots)
					}
					rep.Problems = append(rep.Problems, dp.Drift...)
					rep.Project = dp
				}
			}
			seen := map[string]bool{}
			for _, s := range sources {
				if seen[s] {
					continue
				}
				seen[s] = true
				dr := doctorRegistry{Source: s, Reachable: true}
				if s == "" {
					dr.Source = resolve.EmbeddedSource
				}
				if err := reachable(c, client, s); err != nil {
					dr.Reachable, dr.Error = false, err.Error()
					rep.Problems = append(rep.Problems, fmt.Sprintf("registry %s: %v", dr.Source, err))
				}
				rep.Registries = append(rep.Registries, dr)
			}
			if g.json() {
				if err := writeJSON(g.stdout, rep); err != nil {
					return err
				}
			} else {
				printDoctor(g, &rep)
			}
			if len(rep.Problems) > 0 {
				return withCode(exitFailure, errOutdated)
			}
			return nil
		},
	}
	f.addPlainHTTP(c)
	c.Flags().StringVar(&policy, "policy", "", "trust policy `FILE` to check (default: the search path)")
	return c
}

// reachable lists a source's skills, which needs the registry to answer;
// a registry without a catalog answered all the same.
func reachable(c *cobra.Command, client *registry.Client, src string) error {
	spec := registry.SourceSpec{}
	if src != "" && src != resolve.EmbeddedSource {
		var err error
		if spec, err = registry.ParseSource(src); err != nil {
			return err
		}
	}
	s, err := client.OpenSource(spec)
	if err != nil {
		return err
	}
	if _, err := client.SourceNames(c.Context(), s); err != nil && !errors.Is(err, registry.ErrNoCatalog) {
		return err
	}
	return nil
}

// lockDrift lists where the project's roots differ from its lock.
func lockDrift(p *project, roots []install.Root) []string {
	out := []string{}
	if p.prev == nil {
		return append(out, fmt.Sprintf("%s has no %s: run skillpm install", p.mpath, p.lpath))
	}
	for _, r := range roots {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			out = append(out, r.Dir+": "+err.Error())
			continue
		}
		for _, ls := range p.prev.Skills {
			got, ok := rec.Get(ls.Name)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s %s is locked but not installed in %s: run skillpm install --frozen", ls.Name, ls.Version, r.Dir))
			case got.Digest != ls.Digest && newer(got.Version, ls.Version):
				out = append(out, fmt.Sprintf("%s: %s holds %s, newer than the locked %s: run skillpm lock --upgrade %s (or skillpm update %s)", ls.Name, r.Dir, got.Version, ls.Version, ls.Name, ls.Name))
			case got.Digest != ls.Digest:
				out = append(out, fmt.Sprintf("%s: %s holds %s, the lock says %s: run skillpm install --frozen", ls.Name, r.Dir, got.Version, ls.Version))
			}
		}
	}
	return out
}

func printDoctor(g *globals, rep *doctorReport) {
	w := g.stdout
	fmt.Fprintf(w, "configuration: %s\n", rep.Config)
	fmt.Fprintf(w, "default host:  %s\n", rep.Host)
	fmt.Fprintf(w, "trust policy:  %s\n", rep.Policy)
	fmt.Fprintln(w, "environment:")
	if len(rep.Env) == 0 {
		fmt.Fprintln(w, "  (no overrides)")
	}
	for _, k := range slices.Sorted(maps.Keys(rep.Env)) {
		if v, ok := rep.Env[k]; ok {
			fmt.Fprintf(w, "  %s=%s\n", k, v)
		}
	}
	fmt.Fprintln(w, "registries:")
	for _, r := range rep.Registries {
		state := "reachable"
		if !r.Reachable {
			state = "UNREACHABLE: " + r.Error
		}
		fmt.Fprintf(w, "  %s: %s\n", r.Source, state)
	}
	fmt.Fprintln(w, "roots:")
	for _, r := range rep.Roots {
		state := "absent"
		if r.Exists {
			state = plural(r.Skills, "skill") + " installed by skillpm"
		}
		if r.Journal || len(r.Staged) > 0 {
			state += ", PENDING TRANSACTION"
		}
		fmt.Fprintf(w, "  %-8s %-7s %s  (%s; read by %s)\n", r.Host, r.Scope, r.Dir, state, r.ReadBy)
	}
	if rep.Project != nil {
		fmt.Fprintf(w, "project: %s, %s\n", rep.Project.Manifest, rep.Project.Lock)
		if len(rep.Project.Drift) == 0 {
			fmt.Fprintln(w, "  the installed skills match the lock")
		}
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	fmt.Fprintf(w, "%s:\n", plural(len(rep.Problems), "problem"))
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "  - "+strings.TrimSpace(p))
	}
}

// hostName is the hosts table's display name of h (its id when the table
// has no such host).
func hostName(t *hosts.Table, h install.Host) string {
	if d, err := t.Get(string(h)); err == nil && d.Name != "" {
		return d.Name
	}
	return string(h)
}
