package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/install"
)

// printDecisions says, with -v, why each skill of an install's plan is at
// its version (the range the project asked for, or the skills that need
// it) and why it is at its tier (the trust policy's reasons, in the order
// they were weighed). Nothing below -v.
func printDecisions(g *globals, res *install.Result) {
	if res == nil || !g.verbose() {
		return
	}
	o := g.o()
	neededBy := map[string][]string{}
	if res.Lock != nil {
		for _, s := range res.Lock.Skills {
			for dep, v := range s.Dependencies {
				neededBy[dep] = append(neededBy[dep], fmt.Sprintf("%s@%s (wants %s)", s.Name, s.Version, v))
			}
		}
	}
	for _, p := range res.Plan {
		at := p.Lock.Name + "@" + p.Lock.Version
		switch {
		case p.Lock.Requested != "":
			o.Decision(fmt.Sprintf("%s: the newest version the requested range %s admits that every requirement allows", at, p.Lock.Requested))
		case len(neededBy[p.Lock.Name]) > 0:
			by := neededBy[p.Lock.Name]
			sort.Strings(by)
			o.Decision(fmt.Sprintf("%s: a dependency of %s", at, strings.Join(by, ", ")))
		default:
			o.Decision(fmt.Sprintf("%s: named on the command line", at))
		}
		if p.Verification == nil {
			o.Decision(fmt.Sprintf("%s: tier %s (no registry signature to verify: a local build)", at, p.Lock.Tier))
			continue
		}
		for _, why := range p.Verification.Decision.Why {
			o.Decision(fmt.Sprintf("%s: tier %s: %s", at, p.Lock.Tier, why))
		}
	}
}
