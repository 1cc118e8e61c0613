package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
)

// rootsErr gives the engine's root errors their exit codes: usage for a
// bad host, scope or root and for several hosts to choose from.
func rootsErr(g *globals, err error) error {
	var sh *roots.SeveralHostsError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &sh):
		return &usageError{fmt.Errorf("skills are installed for several hosts (%s): name one with --host, or set host: in the configuration", strings.Join(sh.Hosts, ", "))}
	case errors.Is(err, engine.ErrInvalidRequest):
		return &usageError{err}
	}
	return err
}

// maxRootsShown is how many roots a message names before it counts the
// rest: every host's roots are well over a hundred folders, which made
// one unreadable line.
const maxRootsShown = 4

// rootsLooked words the roots a search read: the first few (those that
// exist first, the ones a user would look at) and how many more, which
// doctor -v lists.
func rootsLooked(dirs []string) string {
	if len(dirs) <= maxRootsShown {
		return strings.Join(dirs, ", ")
	}
	exist := func(d string) bool { _, err := os.Stat(d); return err == nil }
	sorted := slices.Clone(dirs)
	slices.SortStableFunc(sorted, func(a, b string) int {
		switch ea, eb := exist(a), exist(b); {
		case ea && !eb:
			return -1
		case eb && !ea:
			return 1
		}
		return 0
	})
	return fmt.Sprintf("%d roots: %s and %d more; skillpm doctor -v lists them", len(dirs), strings.Join(sorted[:maxRootsShown], ", "), len(dirs)-maxRootsShown)
}

// notInstalledAnywhere is the error for names no root holds.
func notInstalledAnywhere(names []string) error {
	var dirs []string
	for _, r := range install.AllSearchRoots(osEnv()) {
		dirs = append(dirs, r.Dir)
	}
	msg := fmt.Sprintf("%s is not installed in any host's roots (looked in %s)", strings.Join(names, ", "), rootsLooked(dirs))
	if s := suggest(names[0], installedNames()); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	// ErrNotInstalled's class (not found, 4), as why and info report a
	// name that is not installed.
	return fmt.Errorf("%w: %s", install.ErrNotInstalled, msg)
}
