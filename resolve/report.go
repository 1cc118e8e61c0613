package resolve

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// reporter writes the derivation of a failed solve as English, following
// the error-reporting algorithm of Dart pub's solver: a depth-first walk
// from the final incompatibility that explains each derived fact from its
// two causes, collapses linear chains, and numbers only the lines that are
// cited again later.
type reporter struct {
	s           *solver
	root        *incompat
	derivations map[*incompat]int // how many derived incompatibilities cite each one
	numbers     map[*incompat]int // line numbers given so far
	lines       []reportLine
	labels      map[labelKey]string // a set's range as the user wrote it
	byPkg       map[pkgID][]label   // the same, per package in first-seen order
	externals   []*incompat         // external causes, in first-visit order
}

type reportLine struct {
	text   string
	number int // 0: unnumbered; text "": blank separator
}

// label is a range as written for one package, with its set.
type label struct {
	raw string
	set VersionSet
}

type labelKey struct {
	pkg pkgID
	key string
}

func (s *solver) noSolution(root *incompat) error {
	r := &reporter{
		s:           s,
		root:        root,
		derivations: map[*incompat]int{},
		numbers:     map[*incompat]int{},
		labels:      map[labelKey]string{},
		byPkg:       map[pkgID][]label{},
	}
	// The project's own ranges name sets first, then the ranges met in
	// the derivation, in a fixed walk order.
	for _, d := range s.pkg(rootID).deps[0] {
		r.label(d.pkg, d.set, d.raw)
	}
	r.count(root)
	for _, e := range r.externals {
		if e.kind == kindDependency {
			r.label(e.dependee, e.dependeeSet, e.depRaw)
		}
	}
	if root.kind == kindDerived {
		r.visit(root, false)
	} else {
		r.write(root, "Because "+r.str(root)+", version solving failed.", false)
	}
	reqs, hint := r.hint()
	return &NoSolutionError{Explanation: r.render(hint), Requirements: reqs}
}

func (r *reporter) label(p pkgID, set VersionSet, raw string) {
	k := labelKey{p, set.key()}
	if _, ok := r.labels[k]; !ok {
		r.labels[k] = strings.TrimSpace(raw)
		r.byPkg[p] = append(r.byPkg[p], label{strings.TrimSpace(raw), set})
	}
}

// count records how often each incompatibility is cited and collects the
// external ones.
func (r *reporter) count(inc *incompat) {
	if _, seen := r.derivations[inc]; seen {
		r.derivations[inc]++
		return
	}
	r.derivations[inc] = 1
	if inc.kind != kindDerived {
		r.externals = append(r.externals, inc)
		return
	}
	r.count(inc.left)
	r.count(inc.right)
}

func (r *reporter) write(inc *incompat, text string, numbered bool) {
	if !numbered {
		r.lines = append(r.lines, reportLine{text: text})
		return
	}
	n := len(r.numbers) + 1
	r.numbers[inc] = n
	r.lines = append(r.lines, reportLine{text: text, number: n})
}

func (r *reporter) visit(inc *incompat, conclusion bool) {
	numbered := conclusion || r.derivations[inc] > 1
	conj := "And"
	if conclusion || inc == r.root {
		conj = "So,"
	}
	text := r.str(inc)
	a, b := inc.left, inc.right
	switch {
	case a.kind == kindDerived && b.kind == kindDerived:
		la, lb := r.numbers[a], r.numbers[b]
		switch {
		case la != 0 && lb != 0:
			r.write(inc, "Because "+r.and(a, b, la, lb)+", "+text+".", numbered)
		case la != 0 || lb != 0:
			with, without, l := a, b, la
			if la == 0 {
				with, without, l = b, a, lb
			}
			r.visit(without, false)
			r.write(inc, conj+" because "+r.ref(with, l)+", "+text+".", numbered)
		case r.singleLine(a) || r.singleLine(b):
			// The short one needs no number to be followed.
			first, second := b, a
			if r.singleLine(b) {
				first, second = a, b
			}
			r.visit(first, false)
			r.visit(second, false)
			r.write(inc, "Thus, "+text+".", numbered)
		default:
			r.visit(a, true)
			r.lines = append(r.lines, reportLine{})
			r.visit(b, false)
			r.write(inc, conj+" because "+r.ref(a, r.numbers[a])+", "+text+".", numbered)
		}
	case a.kind == kindDerived || b.kind == kindDerived:
		derived, ext := a, b
		if a.kind != kindDerived {
			derived, ext = b, a
		}
		switch l := r.numbers[derived]; {
		case l != 0:
			r.write(inc, "Because "+r.and(ext, derived, 0, l)+", "+text+".", numbered)
		case r.collapsible(derived):
			prior, priorExt := derived.left, derived.right
			if prior.kind != kindDerived {
				prior, priorExt = priorExt, prior
			}
			r.visit(prior, false)
			r.write(inc, conj+" because "+r.and(priorExt, ext, 0, 0)+", "+text+".", numbered)
		default:
			r.visit(derived, false)
			r.write(inc, conj+" because "+r.str(ext)+", "+text+".", numbered)
		}
	default:
		r.write(inc, "Because "+r.and(a, b, 0, 0)+", "+text+".", numbered)
	}
}

// singleLine reports whether a derived incompatibility comes straight from
// two external facts.
func (r *reporter) singleLine(inc *incompat) bool {
	return inc.left.kind != kindDerived && inc.right.kind != kindDerived
}

// collapsible reports whether inc can be folded into the sentence of the
// fact it causes: cited once, from one derived and one external cause,
// and that derived cause not already numbered.
func (r *reporter) collapsible(inc *incompat) bool {
	if r.derivations[inc] > 1 {
		return false
	}
	a, b := inc.left, inc.right
	if (a.kind == kindDerived) == (b.kind == kindDerived) {
		return false
	}
	inner := a
	if a.kind != kindDerived {
		inner = b
	}
	return r.numbers[inner] == 0
}

func (r *reporter) ref(inc *incompat, line int) string {
	if line == 0 {
		return r.str(inc)
	}
	return fmt.Sprintf("%s (%d)", r.str(inc), line)
}

// and joins two causes, merging two requirements into one sentence where
// they chain ("a depends on b ^1 which depends on c ^2") or share a
// depender ("a depends on both b ^1 and c ^2").
func (r *reporter) and(a, b *incompat, la, lb int) string {
	if la == 0 && lb == 0 && a.kind == kindDependency && b.kind == kindDependency {
		if a.depender == b.depender && a.dependerSet.Equal(b.dependerSet) {
			return r.dependerText(a) + " depends on both " + r.dependeeText(a) + " and " + r.dependeeText(b)
		}
		if r.chains(a, b) {
			return r.dependerText(a) + " depends on " + r.dependeeText(a) + " which depends on " + r.dependeeText(b)
		}
		if r.chains(b, a) {
			return r.dependerText(b) + " depends on " + r.dependeeText(b) + " which depends on " + r.dependeeText(a)
		}
	}
	return r.ref(a, la) + " and " + r.ref(b, lb)
}

// chains reports whether every published version a depends on is among the
// dependers of b.
func (r *reporter) chains(a, b *incompat) bool {
	if a.dependee != b.depender || b.depender == rootID {
		return false
	}
	ps := r.s.pkg(a.dependee)
	if !ps.listed {
		return a.dependeeSet.IsSubsetOf(b.dependerSet)
	}
	for _, v := range ps.versions {
		if a.dependeeSet.Contains(v) && !b.dependerSet.Contains(v) {
			return false
		}
	}
	return true
}

// str states one incompatibility as a fact.
func (r *reporter) str(inc *incompat) string {
	switch inc.kind {
	case kindRoot:
		return "the project is required"
	case kindDependency:
		return r.dependerText(inc) + " depends on " + r.dependeeText(inc)
	case kindNoVersions:
		return r.noVersions(inc.terms[0])
	case kindInvalid:
		if inc.depName == "" {
			return r.dependerText(inc) + " has a requirement without a skill name"
		}
		return fmt.Sprintf("%s depends on %s with the invalid range %q", r.dependerText(inc), inc.depName, inc.depRaw)
	}
	if inc.isFailure() {
		return "version solving failed"
	}
	var pos, neg []string
	for _, t := range inc.terms {
		if t.pos {
			pos = append(pos, r.subject(t))
		} else {
			neg = append(neg, r.object(t))
		}
	}
	switch {
	case len(neg) == 0 && len(pos) == 1:
		return pos[0] + " is forbidden"
	case len(pos) == 0 && len(neg) == 1:
		return neg[0] + " is required"
	case len(neg) == 0 && len(pos) == 2:
		return pos[0] + " is incompatible with " + pos[1]
	case len(neg) == 0:
		return joinList(pos, "and") + " are incompatible"
	case len(pos) == 0 && len(neg) == 2:
		return "either " + neg[0] + " or " + neg[1] + " is required"
	case len(pos) == 0:
		return "one of " + joinList(neg, "or") + " is required"
	case len(pos) == 1:
		return pos[0] + " requires " + joinList(neg, "or")
	}
	return joinList(pos, "and") + " together require " + joinList(neg, "or")
}

func (r *reporter) name(p pkgID) string {
	if p == rootID {
		return "the project"
	}
	return r.s.pkg(p).name
}

func (r *reporter) dependerText(inc *incompat) string {
	if inc.depender == rootID {
		return "the project"
	}
	return r.subject(term{pkg: inc.depender, pos: true, set: inc.dependerSet})
}

func (r *reporter) dependeeText(inc *incompat) string {
	raw := strings.TrimSpace(inc.depRaw)
	if inc.dependeeSet.IsEmpty() {
		return inc.depName + " " + raw + " (which no version satisfies)"
	}
	return inc.depName + " " + raw
}

// subject names the versions a term allows, at the head of a clause.
func (r *reporter) subject(t term) string {
	if t.pkg == rootID {
		return "the project"
	}
	text, every := r.setText(t.pkg, t.set)
	if every {
		return "every version of " + r.name(t.pkg)
	}
	return r.name(t.pkg) + " " + text
}

// object names the versions a negative term's set holds, as what is
// required.
func (r *reporter) object(t term) string {
	if t.pkg == rootID {
		return "the project"
	}
	text, every := r.setText(t.pkg, t.set)
	if every {
		return r.name(t.pkg)
	}
	return r.name(t.pkg) + " " + text
}

// noVersions states that no published version lies in t's set. The set
// is what was left of some written range once versions were ruled out one
// by one, so it is best told as that range minus the published versions
// it still held: "no versions of fix match ^1 other than 1.1.0".
func (r *reporter) noVersions(t term) string {
	ps := r.s.pkg(t.pkg)
	name := r.name(t.pkg)
	if len(ps.versions) == 0 {
		return "no versions of " + name + " exist"
	}
	// Of the written ranges holding the set, the one with the fewest
	// published versions to except reads best.
	best, bestOthers := -1, []string(nil)
	for i, l := range r.byPkg[t.pkg] {
		if !t.set.IsSubsetOf(l.set) {
			continue
		}
		var others []string
		for _, v := range ps.versions {
			if l.set.Contains(v) {
				others = append(others, v.String())
			}
		}
		if best < 0 || len(others) < len(bestOthers) {
			best, bestOthers = i, others
		}
	}
	if best >= 0 {
		raw := r.byPkg[t.pkg][best].raw
		text := "no versions of " + name + " match " + raw
		switch n := len(bestOthers); {
		case n > 4:
			text += fmt.Sprintf(" other than %s and %d more", strings.Join(bestOthers[:3], ", "), n-3)
		case n > 0:
			text += " other than " + joinList(bestOthers, "and")
		case !r.s.opts.Prerelease && r.preMatch(t.pkg, raw):
			text += " (only pre-releases do, and none was asked for)"
		}
		return text
	}
	return "no versions of " + name + " match " + t.set.String()
}

// preMatch reports whether raw would admit a published pre-release of p if
// pre-releases were allowed.
func (r *reporter) preMatch(p pkgID, raw string) bool {
	set, err := ParseRange(raw, true)
	if err != nil {
		return false
	}
	for _, v := range r.s.pkg(p).versions {
		if v.Prerelease() != "" && set.Contains(v) {
			return true
		}
	}
	return false
}

// setText renders a set for package p: as a range the user wrote when one
// denotes exactly this set; else in terms of the published versions it
// holds (every is true when it holds them all), as uv does, since derived
// sets have bounds no one wrote; else literally. Published pre-releases
// outside the set are ignored when grouping, as they are never candidates
// unless asked for.
func (r *reporter) setText(p pkgID, set VersionSet) (string, bool) {
	if l, ok := r.labels[labelKey{p, set.key()}]; ok {
		return l, false
	}
	ps := r.s.pkg(p)
	type cand struct {
		i  int // index into ps.versions
		in bool
	}
	var cands []cand
	for i, v := range ps.versions {
		c := set.Contains(v)
		if v.Prerelease() != "" && !c {
			continue
		}
		cands = append(cands, cand{i, c})
	}
	var parts []string
	matched := 0
	for k := 0; k < len(cands); {
		if !cands[k].in {
			k++
			continue
		}
		start := k
		for k < len(cands) && cands[k].in {
			k++
		}
		end := k - 1
		matched += k - start
		lo := ps.versions[cands[start].i].String()
		switch {
		case start == end:
			parts = append(parts, lo)
		case start == 0 && end == len(cands)-1:
			// every candidate: reported below
		case start == 0:
			parts = append(parts, "<"+ps.versions[cands[end+1].i].String())
		case end == len(cands)-1:
			parts = append(parts, ">="+lo)
		default:
			parts = append(parts, ">="+lo+", <"+ps.versions[cands[end+1].i].String())
		}
	}
	switch {
	case matched == 0:
		return set.String(), false
	case matched == len(cands):
		return "", true
	}
	return strings.Join(parts, " || "), false
}

// hint names what the user can change: the project's requirements that
// take part in the conflict, and the skills that a new release could fix.
func (r *reporter) hint() ([]string, string) {
	reqSet, pubSet := map[string]bool{}, map[string]bool{}
	for _, e := range r.externals {
		switch e.kind {
		case kindDependency:
			if e.depender == rootID {
				reqSet[e.depName] = true
			} else {
				pubSet[r.name(e.depender)] = true
			}
		case kindNoVersions:
			pubSet[r.name(e.terms[0].pkg)] = true
		case kindInvalid:
			pubSet[r.name(e.depender)] = true
		}
	}
	reqs, pubs := slices.Sorted(maps.Keys(reqSet)), slices.Sorted(maps.Keys(pubSet))
	switch {
	case len(reqs) > 0 && len(pubs) > 0:
		return reqs, "Loosen or change the requirement on " + joinList(reqs, "or") +
			", or publish a compatible version of " + joinList(pubs, "or") + "."
	case len(reqs) > 0:
		return reqs, "Loosen or change the requirement on " + joinList(reqs, "or") + "."
	case len(pubs) > 0:
		return reqs, "Publish a compatible version of " + joinList(pubs, "or") + "."
	}
	return reqs, ""
}

func (r *reporter) render(hint string) string {
	pad := 0
	if n := len(r.numbers); n > 0 {
		pad = len(fmt.Sprintf("(%d) ", n))
	}
	var b strings.Builder
	blank := true // no blank line at the top
	for _, l := range r.lines {
		if l.text == "" {
			if !blank {
				b.WriteString("\n")
			}
			blank = true
			continue
		}
		blank = false
		if l.number != 0 {
			fmt.Fprintf(&b, "%-*s", pad, fmt.Sprintf("(%d)", l.number))
		} else {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(l.text)
		b.WriteString("\n")
	}
	if hint != "" {
		b.WriteString("\n" + hint + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// joinList writes "a", "a or b", "a, b or c".
func joinList(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
