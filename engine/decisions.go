package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
)

// Decisions say why an operation chose what it chose: why each skill is
// at its version, why at its tier. They go to Options.Log as
// slog.LevelDebug records without an EventKey attribute (install stages
// and publish items carry one), the text in the message, so a front end
// shows them when it asks for debug records (skillpm -v) and the work of
// wording them is skipped when nobody does.

// decides reports whether anyone listens to decisions.
func (e *Engine) decides() bool {
	return e.opts.Log != nil && e.opts.Log.Enabled(context.Background(), slog.LevelDebug)
}

// decide reports one decision.
func (e *Engine) decide(msg string) {
	e.opts.Log.Log(context.Background(), slog.LevelDebug, msg)
}

// decideInstall reports why each skill res planned is at its version
// (kept, moved from the version it replaces, asked for by a range, or a
// dependency) and at its tier (the trust policy's reasons, in the order
// they were weighed).
func (e *Engine) decideInstall(res *install.Result) {
	if res == nil || !e.decides() {
		return
	}
	from := map[string]string{}
	changed := map[string]bool{}
	for _, ch := range res.Changes {
		changed[ch.Name] = true
		if ch.From != "" && ch.From != ch.To {
			from[ch.Name] = ch.From
		}
	}
	neededBy := dependents(res.Lock)
	for _, p := range res.Plan {
		s := p.Lock
		at := s.Name + "@" + s.Version
		why := versionWhy(s, neededBy)
		switch {
		case from[s.Name] != "":
			why = "from " + from[s.Name] + ": " + why
		case !changed[s.Name]:
			why = "kept, as installed: " + why
		}
		e.decide(at + ": " + why)
		if p.Verification == nil {
			e.decide(fmt.Sprintf("%s: tier %s (no registry signature to verify: a local build)", at, s.Tier))
			continue
		}
		for _, r := range p.Verification.Decision.Why {
			e.decide(fmt.Sprintf("%s: tier %s: %s", at, s.Tier, r))
		}
	}
}

// decideLock reports why each skill of next is at its version: kept from
// prev, moved from prev's version, or chosen afresh; and its tier, as
// the lock records it (lock verifies nothing itself).
func (e *Engine) decideLock(prev, next *resolve.Lockfile) {
	if next == nil || !e.decides() {
		return
	}
	before := map[string]string{}
	if prev != nil {
		for _, s := range prev.Skills {
			before[s.Name] = s.Version
		}
	}
	neededBy := dependents(next)
	for _, s := range next.Skills {
		at := s.Name + "@" + s.Version
		why := versionWhy(s, neededBy)
		switch old, ok := before[s.Name]; {
		case ok && old == s.Version:
			why = "kept, as locked (every requirement still allows it)"
		case ok:
			why = "from " + old + ": " + why
		}
		e.decide(at + ": " + why)
		if s.Tier != "" {
			e.decide(fmt.Sprintf("%s: tier %s, as install recorded it when it verified the version", at, s.Tier))
		}
	}
}

// decideOutdated reports why each skill checked wants the version it
// wants.
func (e *Engine) decideOutdated(rows []install.OutdatedSkill) {
	if !e.decides() {
		return
	}
	for _, s := range rows {
		switch {
		case s.Wanted == "":
			e.decide(fmt.Sprintf("%s: no wanted version: %s no longer has the skill", s.Name, s.Source))
		case s.Range != "":
			e.decide(fmt.Sprintf("%s: wants %s, the newest version the range %s allows (latest %s)", s.Name, s.Wanted, s.Range, s.Latest))
		default:
			e.decide(fmt.Sprintf("%s: wants %s, what resolving the skills that need it gives now (latest %s)", s.Name, s.Wanted, s.Latest))
		}
	}
}

// dependents maps each skill of lock to the skills that need it, with the
// version they were given.
func dependents(lock *resolve.Lockfile) map[string][]string {
	out := map[string][]string{}
	if lock == nil {
		return out
	}
	for _, s := range lock.Skills {
		for dep, v := range s.Dependencies {
			out[dep] = append(out[dep], fmt.Sprintf("%s@%s (wants %s)", s.Name, s.Version, v))
		}
	}
	for _, by := range out {
		sort.Strings(by)
	}
	return out
}

// versionWhy says why s is at its version.
func versionWhy(s resolve.LockedSkill, neededBy map[string][]string) string {
	switch {
	case s.Git != "":
		return "the commit " + s.Git + " resolves to"
	case s.Requested != "":
		return "the newest version the requested range " + s.Requested + " admits that every requirement allows"
	case len(neededBy[s.Name]) > 0:
		return "a dependency of " + strings.Join(neededBy[s.Name], ", ")
	}
	return "named on the command line"
}

// decideRef reports why a reference's version is the one sel picked.
func (e *Engine) decideRef(sel source.Selector, pre bool, m *registry.SkillVersion) {
	if !e.decides() {
		return
	}
	at := m.Metadata.Name + "@" + m.Metadata.Version
	releases := "releases only"
	if pre {
		releases = "pre-releases included"
	}
	switch sel.Kind {
	case source.SelectLatest:
		e.decide(fmt.Sprintf("%s: the newest version published (%s)", at, releases))
	case source.SelectRange:
		e.decide(fmt.Sprintf("%s: the newest version the range %s admits (%s)", at, sel.Raw, releases))
	case source.SelectVersion:
		e.decide(fmt.Sprintf("%s: the version named", at))
	case source.SelectDigest:
		e.decide(fmt.Sprintf("%s: the manifest %s names", at, sel.Digest))
	}
}
