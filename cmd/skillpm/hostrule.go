package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/install"
)

// chooseHost is the one rule for the host a command writes to when no
// --host or --root is given: the configuration's host:, else the single
// host whose roots (project or user) already hold skills skillpm
// installed, else install.DefaultHost when none holds any. When several
// hosts hold skills it fails with their list: guessing would put a skill
// where the user's agent does not look.
func chooseHost(g *globals, env install.Env) (install.Host, error) {
	if h := g.config().Host; h != "" {
		return h, nil
	}
	holding := map[install.Host]bool{}
	for _, r := range install.AllSearchRoots(env) {
		rec, err := install.ReadReceipts(r.Dir)
		if err == nil && len(rec.Skills) > 0 {
			holding[r.Host] = true
		}
	}
	switch len(holding) {
	case 0:
		return install.DefaultHost, nil
	case 1:
		for h := range holding {
			return h, nil
		}
	}
	var names []string
	for h := range holding {
		names = append(names, string(h))
	}
	sort.Strings(names)
	return "", &usageError{fmt.Errorf("skills are installed for several hosts (%s): name one with --host, or set host: in the configuration", strings.Join(names, ", "))}
}

// rootsHolding returns, when no --host, --scope or --root narrows the
// choice, every host's roots (project and user) whose receipts hold any
// of names (any skill when names is empty); otherwise the roots the flags
// name. searchedAll says which it was, for messages.
func rootsHolding(rf *rootFlags, def install.Host, names []string) (roots []install.Root, searchedAll bool, err error) {
	if len(rf.hosts) > 0 || len(rf.roots) > 0 || rf.scope != "" {
		roots, err = rf.targets(def)
		return roots, false, err
	}
	for _, r := range install.AllSearchRoots(osEnv()) {
		rec, err := install.ReadReceipts(r.Dir)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", r.Dir, err)
		}
		for _, s := range rec.Skills {
			if len(names) == 0 || slices.Contains(names, s.Name) {
				roots = append(roots, r)
				break
			}
		}
	}
	return roots, true, nil
}

// notInstalledAnywhere is the error for names no root holds.
func notInstalledAnywhere(names []string) error {
	var dirs []string
	for _, r := range install.AllSearchRoots(osEnv()) {
		dirs = append(dirs, r.Dir)
	}
	msg := fmt.Sprintf("%s is not installed in any host's roots (looked in %s)", strings.Join(names, ", "), strings.Join(dirs, ", "))
	if s := suggest(names[0], installedNames()); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return withCode(exitUsage, fmt.Errorf("%w: %s", install.ErrNotInstalled, msg))
}
