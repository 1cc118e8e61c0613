package resolve

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func providerOf(t *testing.T, registry string) *memProvider {
	t.Helper()
	c, err := parseCase("# registry\n" + registry)
	if err != nil {
		t.Fatal(err)
	}
	return c.src
}

func TestSolveProviderErrors(t *testing.T) {
	src := providerOf(t, "fix 1.0.0 -> code ^1\ncode 1.0.0\n")
	src.failOn = "code"
	_, err := Solve(context.Background(), src, map[string]string{"fix": "^1"}, Options{})
	if err == nil || errors.Is(err, ErrNoSolution) || !strings.Contains(err.Error(), "code") || !strings.Contains(err.Error(), "registry unreachable") {
		t.Fatalf("want the Provider error naming code, got %v", err)
	}

	// A version listed but whose requirements cannot be read aborts too.
	src = providerOf(t, "fix 1.0.0\n")
	src.pkgs["fix"] = append(src.pkgs["fix"], memVersion{v: semver.MustParse("1.0.0")})
	bad := &brokenDeps{src}
	_, err = Solve(context.Background(), bad, map[string]string{"fix": "^1"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "fix@1.0.0") {
		t.Fatalf("want an error naming fix@1.0.0, got %v", err)
	}
}

type brokenDeps struct{ *memProvider }

func (b *brokenDeps) Dependencies(context.Context, string, *semver.Version) (map[string]string, error) {
	return nil, errors.New("manifest unreadable")
}

func TestSolveCancelled(t *testing.T) {
	src := providerOf(t, "fix 1.0.0\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, src, map[string]string{"fix": "*"}, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

// cancelling makes a Provider fail once it has answered n calls, as a
// network Provider does when its context is cancelled mid-solve.
type cancelling struct {
	*memProvider
	n      int
	cancel context.CancelFunc
}

func (c *cancelling) Dependencies(ctx context.Context, name string, v *semver.Version) (map[string]string, error) {
	if c.n--; c.n <= 0 {
		c.cancel()
	}
	return c.memProvider.Dependencies(ctx, name, v)
}

func TestSolveCancelledMidway(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("s" + strconv.Itoa(i) + " 1.0.0 -> s" + strconv.Itoa(i+1) + " ^1\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &cancelling{providerOf(t, b.String()), 10, cancel}
	if _, err := Solve(ctx, src, map[string]string{"s0": "^1"}, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if src.n > 0 {
		t.Fatalf("the solve ended before it was cancelled")
	}
}

func TestSolveStepLimit(t *testing.T) {
	src := providerOf(t, "a 1.0.0 -> b ^1\nb 1.0.0 -> c ^1\nc 1.0.0\n")
	_, err := Solve(context.Background(), src, map[string]string{"a": "*"}, Options{MaxSteps: 3})
	if !errors.Is(err, ErrStepLimit) {
		t.Fatalf("want ErrStepLimit, got %v", err)
	}
	if _, err := Solve(context.Background(), src, map[string]string{"a": "*"}, Options{MaxSteps: 100}); err != nil {
		t.Fatalf("a generous limit fails: %v", err)
	}
}

func TestSolveInvalidInput(t *testing.T) {
	src := providerOf(t, "fix 1.0.0\n")
	if _, err := Solve(context.Background(), nil, nil, Options{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("nil Provider: %v", err)
	}
	for _, tc := range []struct {
		roots map[string]string
		opts  Options
		want  error
	}{
		{map[string]string{"fix": "^1.a"}, Options{}, ErrInvalidRange},
		{map[string]string{"fix": "!=1.2.x-beta"}, Options{}, ErrUnsupportedRange},
		{map[string]string{"": "^1"}, Options{}, ErrInvalidName},
		{map[string]string{"fix": "^1"}, Options{MaxSteps: -1}, ErrInvalidOptions},
		{map[string]string{"fix": "^1"}, Options{Locked: map[string]*semver.Version{"fix": nil}}, ErrInvalidOptions},
		{map[string]string{"fix": "^1"}, Options{Locked: map[string]*semver.Version{"": semver.MustParse("1.0.0")}}, ErrInvalidOptions},
	} {
		if _, err := Solve(context.Background(), src, tc.roots, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("Solve(%v, %+v) = %v, want %v", tc.roots, tc.opts, err, tc.want)
		}
	}
}

// Versions equal but for build metadata are one version; which one is
// returned must not depend on the order the Provider lists them in.
func TestSolveMetadataDuplicates(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		src := providerOf(t, "fix 1.0.0+b\nfix 1.0.0+a\nfix 0.9.0\n")
		src.reversed = reversed
		sol, err := Solve(context.Background(), src, map[string]string{"fix": "*"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := sol["fix"].Original(); got != "1.0.0+a" {
			t.Fatalf("reversed=%v: got %s, want 1.0.0+a", reversed, got)
		}
	}
}

// A deep chain exercises propagation over many levels and Names' order.
func TestSolveChain(t *testing.T) {
	var b strings.Builder
	names := []string{}
	for i := 0; i < 200; i++ {
		name := "s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i)
		names = append(names, name)
	}
	for i, n := range names {
		dep := ""
		if i+1 < len(names) {
			dep = " -> " + names[i+1] + " ^1"
		}
		b.WriteString(n + " 1.0.0" + dep + "\n" + n + " 2.0.0\n")
	}
	src := providerOf(t, b.String())
	sol, err := Solve(context.Background(), src, map[string]string{names[0]: "^1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sol) != len(names) {
		t.Fatalf("got %d skills, want %d", len(sol), len(names))
	}
	got := sol.Names()
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("Names not sorted at %d: %q >= %q", i, got[i-1], got[i])
		}
	}
	src.checkCalls(t)
}
