package resolve

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"
)

// Provider supplies what the solver needs to know about published skills.
// Implementations should be safe to call with a cancelled ctx (and then
// fail); the solver calls them from one goroutine.
type Provider interface {
	// Versions returns every published version of the named skill, in any
	// order. An unknown skill is an error wrapping ErrNotFound.
	Versions(ctx context.Context, name string) ([]*semver.Version, error)
	// Dependencies returns the requirements of one version: skill name to
	// Masterminds range.
	Dependencies(ctx context.Context, name string, v *semver.Version) (map[string]string, error)
}

// chronoDistance is the backjump distance, in decision levels, beyond
// which conflict resolution backtracks chronologically.
const chronoDistance = 16

// DefaultMaxSteps bounds decisions, derivations and conflict resolutions
// when Options.MaxSteps is zero. Real solves need a few steps per skill in
// the solution plus some per conflict (about 60,000 for the 10,000-skill
// benchmark); the bound only stops pathological inputs, which ctx can also
// cancel.
const DefaultMaxSteps = 500_000

// Options tunes [Solve]. The zero Options is valid.
type Options struct {
	// Locked maps skill names to preferred versions, typically from
	// skills.lock: a locked version is chosen while it satisfies every
	// requirement; otherwise the newest allowed version is.
	Locked map[string]*semver.Version
	// Prerelease makes pre-releases candidates in every range, as --pre
	// does. Without it a pre-release is a candidate only for a range that
	// names a pre-release itself ("^2.0.0-beta").
	Prerelease bool
	// MaxSteps bounds decisions, derivations and conflict resolutions; 0
	// means DefaultMaxSteps.
	MaxSteps int

	// chrono overrides chronoDistance for tests: -1 always backtracks
	// chronologically, a positive value sets the distance.
	chrono int
}

// Validate reports a negative MaxSteps or a Locked entry without a name or
// version.
func (o Options) Validate() error {
	if o.MaxSteps < 0 {
		return fmt.Errorf("%w: Options.MaxSteps must not be negative, got %d", ErrInvalidOptions, o.MaxSteps)
	}
	for name, v := range o.Locked {
		if name == "" || v == nil {
			return fmt.Errorf("%w: Options.Locked needs a name and a version for every entry (%q)", ErrInvalidOptions, name)
		}
	}
	return nil
}

// Solution maps each selected skill to its version. It holds exactly the
// skills reachable from the requirements.
type Solution map[string]*semver.Version

// Names returns the selected skill names, sorted.
func (s Solution) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Solve picks one version of every skill needed to satisfy roots (skill
// name to Masterminds range), using PubGrub: it is complete, so it fails
// only when no solution exists, and then returns a [*NoSolutionError]
// explaining why.
//
// Dependency cycles are fine, as is a skill depending on itself when its
// own version satisfies the range. Provider.Versions is called at most once
// per skill and Provider.Dependencies at most once per version, and only
// for versions the solver is about to try. An unknown skill (ErrNotFound)
// counts as having no versions; any other Provider error aborts the solve.
// Invalid ranges in roots fail with ErrInvalidRange; an invalid range in a
// published version only rules that version out.
func Solve(ctx context.Context, src Provider, roots map[string]string, opts Options) (Solution, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("%w: nil Provider", ErrInvalidOptions)
	}
	s := &solver{
		ctx:    ctx,
		src:    src,
		opts:   opts,
		ids:    map[string]pkgID{},
		ranges: map[string]parsedRange{},
		max:    opts.MaxSteps,
		gen:    []uint32{1},
	}
	if s.max == 0 {
		s.max = DefaultMaxSteps
	}
	switch s.chrono = chronoDistance; {
	case opts.chrono < 0:
		s.chrono = 0
	case opts.chrono > 0:
		s.chrono = opts.chrono
	}
	root := s.pkg(s.intern(""))
	names := make([]string, 0, len(roots))
	for n := range roots {
		names = append(names, n)
	}
	sort.Strings(names)
	deps := make([]dep, 0, len(names))
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("requirement with range %q: %w: empty name", roots[n], ErrInvalidName)
		}
		set, err := s.parse(roots[n])
		if err != nil {
			return nil, fmt.Errorf("requirement on %s: %w", n, err)
		}
		deps = append(deps, dep{name: n, pkg: s.intern(n), raw: roots[n], set: set})
	}
	root.listed = true
	root.versions = []*semver.Version{semver.New(0, 0, 0, "", "")}
	root.rels = root.versions
	root.deps = [][]dep{deps}
	root.fetched = []bool{true}
	root.added = []bool{false}
	root.depIncs = make([][]*incompat, 1)
	root.bounds = make([]verBounds, 1)
	return s.run()
}

type solver struct {
	ctx    context.Context
	src    Provider
	opts   Options
	max    int
	chrono int // backjump distance beyond which to backtrack chronologically
	steps  int
	pkgs   []*pkgState
	ids    map[string]pkgID
	ranges map[string]parsedRange // every range string is parsed once

	assigns []assignment // the partial solution, oldest first
	level   int32        // current decision level
	gen     []uint32     // per level, bumped each time a decision opens it

	dirty   []pkgID // packages whose state changed since the queue was refreshed
	queue   pendingQueue
	changed []pkgID // scratch for propagate
}

type parsedRange struct {
	set VersionSet
	err error
}

// pkgState is everything the solver knows about one skill.
type pkgState struct {
	name     string
	listed   bool              // versions fetched
	versions []*semver.Version // ascending, without duplicates
	rels     []*semver.Version // the releases among versions
	pres     []*semver.Version // the pre-releases among versions
	deps     [][]dep           // per version, sorted by name, once fetched
	fetched  []bool            // deps[i] is known
	added    []bool            // the incompatibilities of deps[i] are in place
	depIncs  [][]*incompat     // the incompatibilities of deps[i]
	bounds   []verBounds       // per version, computed on first use
	locked   *semver.Version   // preferred version
	incs     []*incompat       // incompatibilities mentioning this package
	assigns  []int32           // its assignments, indices into solver.assigns
	decided  bool              // a decision is among assigns
	decision int32             // index into versions, when decided
	stamp    uint32            // bumped on every change, to spot stale queue entries
	dirty    bool              // in solver.dirty
	changed  bool              // in solver.changed
}

// verBounds caches what set construction derives from one published
// version, because building bounds allocates and the same versions bound
// every dependency run and decision.
type verBounds struct {
	done       bool
	rel, pre   *semver.Version // relBound and preBound of the version
	preOK      bool
	exact      VersionSet
	exactReady bool
}

func (ps *pkgState) bound(i int) *verBounds {
	b := &ps.bounds[i]
	if !b.done {
		v := ps.versions[i]
		b.rel = relBound(v)
		b.pre, b.preOK = preBound(v)
		b.done = true
	}
	return b
}

// exact returns Exactly(versions[i]), cached.
func (ps *pkgState) exact(i int) VersionSet {
	b := &ps.bounds[i]
	if !b.exactReady {
		b.exact, b.exactReady = Exactly(ps.versions[i]), true
	}
	return b.exact
}

// between returns the versions from versions[lo] (or below all when lo is
// -1) up to but excluding versions[hi] (or above all when hi is past the
// end).
func (ps *pkgState) between(lo, hi int) VersionSet {
	var rlo, rhi, plo, phi *semver.Version
	preOK := true
	if lo >= 0 {
		b := ps.bound(lo)
		rlo, plo, preOK = b.rel, b.pre, b.preOK
	}
	if hi < len(ps.versions) {
		b := ps.bound(hi)
		rhi, phi = b.rel, b.pre
	}
	return boundSet(rlo, rhi, plo, phi, preOK)
}

// countUpTo returns how many versions set holds, or limit if that is less:
// the queue only tells none, one and several apart.
func (ps *pkgState) countUpTo(set VersionSet, limit int) int {
	n := 0
	for _, d := range [2]struct {
		sp spans
		vs []*semver.Version
	}{{set.rel, ps.rels}, {set.pre, ps.pres}} {
		for _, sp := range d.sp {
			lo, hi := 0, len(d.vs)
			if sp.lo != nil {
				lo = sort.Search(len(d.vs), func(i int) bool { return d.vs[i].Compare(sp.lo) >= 0 })
			}
			if sp.hi != nil {
				hi = sort.Search(len(d.vs), func(i int) bool { return d.vs[i].Compare(sp.hi) >= 0 })
			}
			if n += max(hi-lo, 0); n >= limit {
				return limit
			}
		}
	}
	return n
}

// dep is one requirement of one version.
type dep struct {
	name string
	pkg  pkgID
	raw  string
	set  VersionSet
	err  error // the range or name is unusable
}

// assignment is one step of the partial solution.
type assignment struct {
	pkg      pkgID
	term     term
	acc      term // intersection of this package's assignments up to here
	level    int32
	cause    *incompat // nil for a decision
	decision bool
}

func (s *solver) pkg(id pkgID) *pkgState { return s.pkgs[id] }

func (s *solver) intern(name string) pkgID {
	if id, ok := s.ids[name]; ok {
		return id
	}
	id := pkgID(len(s.pkgs))
	s.ids[name] = id
	s.pkgs = append(s.pkgs, &pkgState{name: name, locked: s.opts.Locked[name]})
	return id
}

func (s *solver) parse(r string) (VersionSet, error) {
	if p, ok := s.ranges[r]; ok {
		return p.set, p.err
	}
	set, err := ParseRange(r, s.opts.Prerelease)
	s.ranges[r] = parsedRange{set, err}
	return set, err
}

// step counts one unit of work against MaxSteps and notices cancellation.
func (s *solver) step() error {
	s.steps++
	if s.steps > s.max {
		return fmt.Errorf("%w (%d steps)", ErrStepLimit, s.max)
	}
	return s.ctx.Err()
}

func (s *solver) run() (Solution, error) {
	s.addIncompat(&incompat{terms: []term{{pkg: rootID, pos: false, set: AllVersions()}}, kind: kindRoot})
	next := rootID
	for {
		if err := s.propagate(next); err != nil {
			return nil, err
		}
		p, done, err := s.decide()
		if err != nil {
			return nil, err
		}
		if done {
			sol := Solution{}
			for id, ps := range s.pkgs {
				if id != int(rootID) && ps.decided {
					sol[ps.name] = ps.versions[ps.decision]
				}
			}
			return sol, nil
		}
		next = p
	}
}

func (s *solver) addIncompat(inc *incompat) {
	for _, t := range inc.terms {
		ps := s.pkg(t.pkg)
		ps.incs = append(ps.incs, inc)
	}
}

// acc returns the intersection of p's assignments; ok is false if it has none.
func (s *solver) acc(p pkgID) (term, bool) {
	ps := s.pkg(p)
	if len(ps.assigns) == 0 {
		return term{}, false
	}
	return s.assigns[ps.assigns[len(ps.assigns)-1]].acc, true
}

func (s *solver) termRelation(t term) relation {
	a, ok := s.acc(t.pkg)
	if !ok {
		if t.set.IsEmpty() {
			return relate(term{pos: true}, t)
		}
		return relInconclusive
	}
	return relate(a, t)
}

type incRelation uint8

const (
	incNone      incRelation = iota // contradicted, or two or more terms undecided
	incAlmost                       // all terms but one satisfied, that one undecided
	incSatisfied                    // a conflict
)

// relation tells how the partial solution relates to inc. It looks at the
// term on package first before the others (the package that just changed,
// whose term most often settles the matter), and remembers a
// contradiction until a backtrack can undo it: unit propagation revisits
// every incompatibility of a package each time it changes, and most are
// long contradicted.
func (s *solver) relation(inc *incompat, first pkgID) (incRelation, *term) {
	if inc.contraGen != 0 && inc.contraLevel <= s.level && s.gen[inc.contraLevel] == inc.contraGen {
		return incNone, nil
	}
	if len(inc.terms) > 1 && inc.terms[0].pkg != first {
		for i := range inc.terms {
			if inc.terms[i].pkg == first && s.termRelation(inc.terms[i]) == relContradicts {
				inc.contraLevel, inc.contraGen = s.level, s.gen[s.level]
				return incNone, nil
			}
		}
	}
	var unsat *term
	for i := range inc.terms {
		t := &inc.terms[i]
		switch s.termRelation(*t) {
		case relContradicts:
			inc.contraLevel, inc.contraGen = s.level, s.gen[s.level]
			return incNone, nil
		case relInconclusive:
			if unsat != nil {
				return incNone, nil
			}
			unsat = t
		}
	}
	if unsat == nil {
		return incSatisfied, nil
	}
	return incAlmost, unsat
}

func (s *solver) markDirty(p pkgID) {
	ps := s.pkg(p)
	ps.stamp++
	if !ps.dirty {
		ps.dirty = true
		s.dirty = append(s.dirty, p)
	}
}

func (s *solver) derive(t term, cause *incompat) error {
	if err := s.step(); err != nil {
		return err
	}
	s.push(t, cause, false)
	return nil
}

func (s *solver) push(t term, cause *incompat, decision bool) {
	ps := s.pkg(t.pkg)
	acc := t
	if n := len(ps.assigns); n > 0 {
		acc = s.assigns[ps.assigns[n-1]].acc.intersect(t)
	}
	s.assigns = append(s.assigns, assignment{pkg: t.pkg, term: t, acc: acc, level: s.level, cause: cause, decision: decision})
	ps.assigns = append(ps.assigns, int32(len(s.assigns)-1))
	s.markDirty(t.pkg)
}

// propagate is PubGrub's unit propagation, starting from package start:
// every incompatibility that all but one term of is satisfied forces the
// negation of the remaining term; a satisfied one is a conflict.
func (s *solver) propagate(start pkgID) error {
	changed := append(s.changed[:0], start)
	s.pkg(start).changed = true
	defer func() {
		for _, p := range changed {
			s.pkg(p).changed = false
		}
		s.changed = changed[:0]
	}()
	for len(changed) > 0 {
		p := changed[len(changed)-1]
		changed = changed[:len(changed)-1]
		s.pkg(p).changed = false
		incs := s.pkg(p).incs
		// Newest first: learned incompatibilities are the most general.
		for i := len(incs) - 1; i >= 0; i-- {
			rel, unsat := s.relation(incs[i], p)
			switch rel {
			case incSatisfied:
				learned, err := s.resolveConflict(incs[i])
				if err != nil {
					return err
				}
				rel, unsat = s.relation(learned, p)
				if rel != incAlmost {
					return fmt.Errorf("resolve: internal error: learned incompatibility is not almost satisfied")
				}
				if err := s.derive(unsat.negate(), learned); err != nil {
					return err
				}
				for _, q := range changed {
					s.pkg(q).changed = false
				}
				changed = append(changed[:0], unsat.pkg)
				s.pkg(unsat.pkg).changed = true
				i = -1 // the list of p may be stale; restart from the new package
			case incAlmost:
				if err := s.derive(unsat.negate(), incs[i]); err != nil {
					return err
				}
				if q := s.pkg(unsat.pkg); !q.changed {
					q.changed = true
					changed = append(changed, unsat.pkg)
				}
			}
		}
	}
	return nil
}

// satisfier returns the index of the earliest assignment after which the
// partial solution satisfies t, or -1 if t holds with no assignment at all.
func (s *solver) satisfier(t term) int {
	for _, j := range s.pkg(t.pkg).assigns {
		if relate(s.assigns[j].acc, t) == relSatisfies {
			return int(j)
		}
	}
	return -1
}

// resolveConflict is PubGrub's conflict resolution: from a satisfied
// incompatibility it derives, by resolution with the causes of the latest
// satisfying assignments, the root cause of the conflict, backjumps to the
// level where that cause becomes almost satisfied, and returns it.
func (s *solver) resolveConflict(inc *incompat) (*incompat, error) {
	learned := false
	for {
		if inc.isFailure() {
			return nil, s.noSolution(inc)
		}
		if err := s.step(); err != nil {
			return nil, err
		}
		satIdx, prevIdx := -1, -1
		var satTerm term
		for _, t := range inc.terms {
			idx := s.satisfier(t)
			if idx > satIdx {
				prevIdx = max(prevIdx, satIdx)
				satIdx, satTerm = idx, t
			} else {
				prevIdx = max(prevIdx, idx)
			}
		}
		if satIdx < 0 {
			return nil, fmt.Errorf("resolve: internal error: conflict without a satisfier")
		}
		sat := s.assigns[satIdx]
		alone := relate(sat.term, satTerm) == relSatisfies
		if !alone {
			// The satisfier needed an earlier assignment of its own package.
			for _, j := range s.pkg(sat.pkg).assigns {
				if int(j) >= satIdx {
					break
				}
				if relate(s.assigns[j].acc.intersect(sat.term), satTerm) == relSatisfies {
					prevIdx = max(prevIdx, int(j))
					break
				}
			}
		}
		prevLevel := int32(1)
		if prevIdx >= 0 {
			prevLevel = max(prevLevel, s.assigns[prevIdx].level)
		}
		if sat.decision || prevLevel != sat.level {
			if learned {
				s.addIncompat(inc)
			}
			// Backjumping all the way to prevLevel can throw away thousands
			// of unrelated decisions that would only be made again. Past
			// a short distance, undo just the satisfier's level instead
			// ("chronological backtracking"): the learned incompatibility
			// is then almost satisfied there too, and if a later backjump
			// drops the derivation it yields, the incompatibility still
			// catches any decision that breaks it.
			target := prevLevel
			if int(sat.level-1-prevLevel) > s.chrono {
				target = sat.level - 1
			}
			s.backtrack(target)
			return inc, nil
		}
		terms := make([]term, 0, len(inc.terms)+len(sat.cause.terms)+1)
		for _, t := range inc.terms {
			if t.pkg != sat.pkg {
				terms = append(terms, t)
			}
		}
		for _, t := range sat.cause.terms {
			if t.pkg != sat.pkg {
				terms = append(terms, t)
			}
		}
		if !alone {
			terms = append(terms, sat.term.intersect(satTerm.negate()).negate())
		}
		next := newIncompat(terms, kindDerived)
		if next == nil {
			return nil, fmt.Errorf("resolve: internal error: resolution produced an unsatisfiable incompatibility")
		}
		next.left, next.right = inc, sat.cause
		inc = next
		learned = true
	}
}

func (s *solver) backtrack(level int32) {
	for n := len(s.assigns); n > 0 && s.assigns[n-1].level > level; n-- {
		a := s.assigns[n-1]
		ps := s.pkg(a.pkg)
		ps.assigns = ps.assigns[:len(ps.assigns)-1]
		if a.decision {
			ps.decided = false
		}
		s.markDirty(a.pkg)
		s.assigns[n-1] = assignment{}
		s.assigns = s.assigns[:n-1]
	}
	s.level = level
}

// pending reports whether p must still get a version: something requires
// it and no version is decided.
func (s *solver) pending(p pkgID) bool {
	ps := s.pkg(p)
	if ps.decided {
		return false
	}
	a, ok := s.acc(p)
	return ok && a.pos
}

// decide picks the next package to decide and tries its preferred
// version. Packages with no allowed version go first (that conflict is
// certain), then those with exactly one, then the one most recently
// required: deciding a skill right after the skill that needs it makes
// later requirements on it meet a decided version, which conflict
// avoidance handles cheaply, rather than an open range that a far-away
// conflict must undo. done is true when nothing is pending: the decisions
// are a solution.
func (s *solver) decide() (next pkgID, done bool, err error) {
	for {
		if err := s.refreshQueue(); err != nil {
			return 0, false, err
		}
		for s.queue.Len() > 0 {
			e := heap.Pop(&s.queue).(pendingEntry)
			if e.stamp != s.pkg(e.pkg).stamp || !s.pending(e.pkg) {
				continue
			}
			return e.pkg, false, s.tryVersion(e.pkg)
		}
		// Every change re-queues its package, so this finds nothing; it
		// keeps a bookkeeping slip from passing off a partial solution.
		found := false
		for id := range s.pkgs {
			if s.pending(pkgID(id)) {
				s.markDirty(pkgID(id))
				found = true
			}
		}
		if !found {
			return 0, true, nil
		}
	}
}

func (s *solver) refreshQueue() error {
	for _, p := range s.dirty {
		ps := s.pkg(p)
		ps.dirty = false
		if !s.pending(p) {
			continue
		}
		if err := s.list(p); err != nil {
			return err
		}
		a, _ := s.acc(p)
		bucket := ps.countUpTo(a.set, 2)
		heap.Push(&s.queue, pendingEntry{count: bucket, since: ps.assigns[0], pkg: p, stamp: ps.stamp})
	}
	s.dirty = s.dirty[:0]
	return nil
}

// tryVersion adds the requirements of p's preferred allowed version as
// incompatibilities and decides it unless that would at once conflict, in
// which case propagation rules it out instead.
func (s *solver) tryVersion(p pkgID) error {
	if err := s.step(); err != nil {
		return err
	}
	ps := s.pkg(p)
	a, _ := s.acc(p)
	vi := s.choose(p, a.set)
	if vi < 0 {
		set := a.set
		if len(ps.versions) == 0 {
			set = AllVersions()
		}
		s.addIncompat(newIncompat([]term{{pkg: p, pos: true, set: set}}, kindNoVersions))
		s.markDirty(p)
		return nil
	}
	if err := s.fetchDeps(p, vi); err != nil {
		return err
	}
	if !ps.added[vi] {
		ps.added[vi] = true
		s.addDeps(p, vi)
	}
	// Only this version's own requirements can clash at once: any other
	// incompatibility that rules it out has already been propagated.
	v := ps.versions[vi]
	for _, inc := range ps.depIncs[vi] {
		if s.wouldConflict(inc, p, v) {
			s.markDirty(p)
			return nil
		}
	}
	s.level++
	if int(s.level) == len(s.gen) {
		s.gen = append(s.gen, 0)
	}
	s.gen[s.level]++
	ps.decided, ps.decision = true, int32(vi)
	s.push(term{pkg: p, pos: true, set: ps.exact(vi)}, nil, true)
	return nil
}

// wouldConflict reports whether deciding p = v would satisfy inc.
func (s *solver) wouldConflict(inc *incompat, p pkgID, v *semver.Version) bool {
	for _, t := range inc.terms {
		if t.pkg == p {
			if !t.admits(v) {
				return false
			}
		} else if s.termRelation(t) != relSatisfies {
			return false
		}
	}
	return true
}

// choose returns the index of the locked version if set allows it, else of
// the newest version set allows, else -1.
func (s *solver) choose(p pkgID, set VersionSet) int {
	ps := s.pkg(p)
	if ps.locked != nil {
		if i := indexOf(ps.versions, ps.locked); i >= 0 && set.Contains(ps.versions[i]) {
			return i
		}
	}
	for i := len(ps.versions) - 1; i >= 0; i-- {
		if set.Contains(ps.versions[i]) {
			return i
		}
	}
	return -1
}

func indexOf(vs []*semver.Version, v *semver.Version) int {
	i := sort.Search(len(vs), func(i int) bool { return vs[i].Compare(v) >= 0 })
	if i < len(vs) && vs[i].Compare(v) == 0 {
		return i
	}
	return -1
}

// list fetches p's versions once.
func (s *solver) list(p pkgID) error {
	ps := s.pkg(p)
	if ps.listed {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	vs, err := s.src.Versions(s.ctx, ps.name)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("listing versions of %s: %w", ps.name, err)
	}
	ps.listed = true
	ps.versions = sortVersions(vs)
	for _, v := range ps.versions {
		if v.Prerelease() == "" {
			ps.rels = append(ps.rels, v)
		} else {
			ps.pres = append(ps.pres, v)
		}
	}
	n := len(ps.versions)
	ps.deps, ps.fetched, ps.added = make([][]dep, n), make([]bool, n), make([]bool, n)
	ps.depIncs = make([][]*incompat, n)
	ps.bounds = make([]verBounds, n)
	return nil
}

// sortVersions orders versions ascending, drops nils, and keeps one of
// versions equal but for build metadata (the smallest original text, so the
// choice does not depend on the Provider's order).
func sortVersions(in []*semver.Version) []*semver.Version {
	vs := make([]*semver.Version, 0, len(in))
	sorted := true
	for _, v := range in {
		if v == nil {
			continue
		}
		// Registries usually list versions in order; strictly ascending
		// input needs neither sorting nor deduplication.
		if n := len(vs); n > 0 && vs[n-1].Compare(v) >= 0 {
			sorted = false
		}
		vs = append(vs, v)
	}
	if sorted {
		return vs
	}
	sort.Slice(vs, func(i, j int) bool {
		if c := vs[i].Compare(vs[j]); c != 0 {
			return c < 0
		}
		return vs[i].Original() < vs[j].Original()
	})
	out := vs[:0]
	for _, v := range vs {
		if len(out) > 0 && out[len(out)-1].Compare(v) == 0 {
			continue
		}
		out = append(out, v)
	}
	return out
}

// fetchDeps reads the requirements of one version once.
func (s *solver) fetchDeps(p pkgID, vi int) error {
	ps := s.pkg(p)
	if ps.fetched[vi] {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	v := ps.versions[vi]
	m, err := s.src.Dependencies(s.ctx, ps.name, v)
	if err != nil {
		return fmt.Errorf("reading requirements of %s@%s: %w", ps.name, v.Original(), err)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	deps := make([]dep, 0, len(names))
	for _, n := range names {
		d := dep{name: n, raw: m[n]}
		if n == "" {
			d.err = ErrInvalidName
		} else {
			d.pkg = s.intern(n)
			d.set, d.err = s.parse(m[n])
		}
		deps = append(deps, d)
	}
	ps.deps[vi], ps.fetched[vi] = deps, true
	return nil
}

// addDeps turns the requirements of version vi of p into incompatibilities.
func (s *solver) addDeps(p pkgID, vi int) {
	ps := s.pkg(p)
	for _, d := range ps.deps[vi] {
		if d.err != nil {
			inc := &incompat{terms: []term{{pkg: p, pos: true, set: ps.exact(vi)}}, kind: kindInvalid}
			inc.depender, inc.dependerSet, inc.depName, inc.depRaw = p, ps.exact(vi), d.name, d.raw
			s.addIncompat(inc)
			ps.depIncs[vi] = append(ps.depIncs[vi], inc)
			continue
		}
		run := s.sameDepRun(p, vi, d)
		inc := newIncompat([]term{{pkg: p, pos: true, set: run}, {pkg: d.pkg, pos: false, set: d.set}}, kindDependency)
		if inc == nil {
			continue // a skill that satisfies its own requirement on itself
		}
		inc.depender, inc.dependerSet = p, run
		inc.dependee, inc.depName, inc.depRaw, inc.dependeeSet = d.pkg, d.name, d.raw, d.set
		s.addIncompat(inc)
		ps.depIncs[vi] = append(ps.depIncs[vi], inc)
	}
}

// sameDepRun widens the depender side of a requirement from version vi to
// the run of adjacent versions already known to have the same requirement,
// as pub does: one incompatibility then covers them all, the solver learns
// about all of them at once, and explanations read "fix >=1.2.0 depends on
// ..." rather than one line per version. Only versions whose requirements
// were already fetched are merged, so no extra Provider calls are made.
func (s *solver) sameDepRun(p pkgID, vi int, d dep) VersionSet {
	ps := s.pkg(p)
	same := func(i int) bool {
		if !ps.fetched[i] {
			return false
		}
		ds := ps.deps[i]
		k := sort.Search(len(ds), func(k int) bool { return ds[k].name >= d.name })
		return k < len(ds) && ds[k].name == d.name && ds[k].err == nil && ds[k].set.Equal(d.set)
	}
	lo, hi := vi, vi
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi < len(ps.versions)-1 && same(hi+1) {
		hi++
	}
	if lo == 0 {
		lo = -1 // unbounded below: no published version is lower
	}
	return ps.between(lo, hi+1)
}

// pendingQueue orders pending packages by allowed-version count, then by
// first appearance, which keeps runs deterministic.
type pendingQueue []pendingEntry

type pendingEntry struct {
	count int
	since int32
	pkg   pkgID
	stamp uint32
}

func (q pendingQueue) Len() int { return len(q) }
func (q pendingQueue) Less(i, j int) bool {
	if q[i].count != q[j].count {
		return q[i].count < q[j].count
	}
	if q[i].since != q[j].since {
		return q[i].since > q[j].since
	}
	return q[i].pkg < q[j].pkg
}
func (q pendingQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pendingQueue) Push(x any)   { *q = append(*q, x.(pendingEntry)) }
func (q *pendingQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
