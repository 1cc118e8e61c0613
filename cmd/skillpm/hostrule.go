package main

import (
	"fmt"
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
