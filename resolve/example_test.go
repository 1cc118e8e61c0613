package resolve_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/resolve"
)

// catalog is a fixed in-memory Source: skill -> version -> requirements.
type catalog map[string]map[string]map[string]string

func (c catalog) Versions(_ context.Context, name string) ([]*semver.Version, error) {
	vs, ok := c[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, resolve.ErrNotFound)
	}
	var out []*semver.Version
	for v := range vs {
		out = append(out, semver.MustParse(v))
	}
	return out, nil
}

func (c catalog) Dependencies(_ context.Context, name string, v *semver.Version) (map[string]string, error) {
	return c[name][v.Original()], nil
}

func ExampleSolve() {
	src := catalog{
		"fix":  {"1.0.0": {"code": "^2"}, "1.1.0": {"code": "^2", "lint": ">=1.2"}},
		"code": {"2.0.0": nil, "2.3.1": {"lint": "^1"}},
		"lint": {"1.1.0": nil, "1.4.0": nil, "2.0.0-beta.1": nil},
	}
	sol, err := resolve.Solve(context.Background(), src, map[string]string{"fix": "^1"}, resolve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range sol.Names() {
		fmt.Println(name, sol[name])
	}
	// Output:
	// code 2.3.1
	// fix 1.1.0
	// lint 1.4.0
}

func ExampleSolve_noSolution() {
	src := catalog{
		"fix":  {"1.0.0": {"code": "^2"}, "1.1.0": {"code": "^2"}},
		"code": {"2.0.0": {"lint": "<1"}},
		"lint": {"0.9.0": nil, "1.0.0": nil},
	}
	roots := map[string]string{"fix": "^1", "lint": "^1"}
	_, err := resolve.Solve(context.Background(), src, roots, resolve.Options{})
	var nse *resolve.NoSolutionError
	if errors.As(err, &nse) {
		fmt.Println(nse.Explanation)
		fmt.Println(nse.Requirements)
	}
	// Output:
	// Because every version of fix depends on code ^2 which depends on lint <1, every version of fix requires lint <1.
	// So, because the project depends on both fix ^1 and lint ^1, version solving failed.
	//
	// Loosen or change the requirement on fix or lint, or publish a compatible version of code or fix.
	// [fix lint]
}
