package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
)

// rootsErr gives the engine's root errors their exit codes: usage for a
// bad host, scope or root and for several hosts to choose from.
func rootsErr(g *globals, err error) error {
	var sh *engine.SeveralHostsError
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
	// ErrNotInstalled's class (not found, 4), as why and info report a
	// name that is not installed.
	return fmt.Errorf("%w: %s", install.ErrNotInstalled, msg)
}
