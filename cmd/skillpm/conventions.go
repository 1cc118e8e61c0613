package main

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/spf13/cobra"
)

// commandAliases are the short names of everyday commands, as npm, cargo
// and helm users type them.
var commandAliases = map[string][]string{
	"remove":  {"rm", "uninstall"},
	"list":    {"ls"},
	"install": {"i"},
}

// installedNameCommands complete installed skill names; publishedName
// commands complete the names the default source publishes.
var (
	installedNameCommands = []string{"remove", "update", "why", "info"}
	publishedNameCommands = []string{"install", "add"}
)

// applyConventions gives the command tree its aliases and completions:
// --host completes the known hosts, commands that take installed skills
// complete their names, and install and add complete published names.
func applyConventions(g *globals, root *cobra.Command) {
	for _, c := range root.Commands() {
		if a, ok := commandAliases[c.Name()]; ok {
			c.Aliases = append(c.Aliases, a...)
		}
		if slices.Contains(installedNameCommands, c.Name()) && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return installedNames(), cobra.ShellCompDirectiveNoFileComp
			}
		}
		if slices.Contains(publishedNameCommands, c.Name()) && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if strings.HasPrefix(prefix, ".") || strings.HasPrefix(prefix, "/") {
					return nil, cobra.ShellCompDirectiveDefault // a local directory
				}
				return publishedNames(c.Context(), g), cobra.ShellCompDirectiveNoFileComp
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("host") != nil {
			_ = c.RegisterFlagCompletionFunc("host", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				var out []string
				for _, h := range install.Hosts() {
					out = append(out, string(h))
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// installedNames lists the skills skillpm installed in any host's roots.
func installedNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range install.AllSearchRoots(osEnv()) {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			continue
		}
		for _, s := range rec.Skills {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// publishedNames lists the skills the default source (the configuration's
// registry, else the embedded one) holds; nothing when it cannot list.
func publishedNames(ctx context.Context, g *globals) []string {
	if ctx == nil {
		ctx = context.Background()
	}
	e, err := openEngine(ctx, g, engineFlags{lenientEnv: true, noPolicy: true})
	if err != nil {
		return nil
	}
	res, err := e.SourceNames(ctx, engine.SourceNamesRequest{})
	if err != nil {
		return nil
	}
	return res.Names
}
