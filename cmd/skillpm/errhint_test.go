package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/asf"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"web-reserch", "web-research", 1}, {"kitten", "sitting", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"code", "code-review", "web-research", "notes", "zzz"}
	if got := suggest("web-reserch", names); !slices.Equal(got, []string{"web-research"}) {
		t.Errorf("suggest(web-reserch) = %v", got)
	}
	if got := suggest("cod", names); !slices.Equal(got, []string{"code", "code-review"}) {
		t.Errorf("suggest(cod) = %v", got)
	}
	if got := suggest("qqqqqqq", names); len(got) != 0 {
		t.Errorf("suggest(qqqqqqq) = %v", got)
	}
}

func TestNewestVersions(t *testing.T) {
	var vs []*semver.Version
	for _, s := range []string{"0.1.0", "1.0.0", "1.2.0", "1.1.0", "2.0.0", "0.2.0", "0.3.0"} {
		vs = append(vs, semver.MustParse(s))
	}
	if got, want := newestVersions(vs), "2.0.0, 1.2.0, 1.1.0, 1.0.0, 0.3.0, and 2 older"; got != want {
		t.Errorf("newestVersions = %q, want %q", got, want)
	}
}

// TestLibraryErrorsGetFlagHints checks that errors whose library message
// no longer names a flag still reach the user with it, as a hint.
func TestLibraryErrorsGetFlagHints(t *testing.T) {
	noHome := asf.Env{Cwd: t.TempDir()}
	_, stateErr := asf.StateRoot("claude", noHome)
	_, settingsErr := asf.ClaudeSettingsPath(asf.ScopeUser, noHome)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{stateErr, "pass --state-root DIR or --state FILE"},
		{settingsErr, "pass --settings FILE or --scope project"},
		{fmt.Errorf("install: %w", resolve.ErrLockMismatch), "run skillpm install without --frozen to update the lock"},
		{fmt.Errorf("%w in x.json", asf.ErrWorkflowRunning), "--force replaces it"},
		{fmt.Errorf("ghcr.io/acme/skills: %w", registry.ErrNoIndex), "a maintainer builds it with skillpm index build --registry SOURCE (--sign --key K signs it)"},
	} {
		if tc.err == nil {
			t.Fatalf("want an error hinted %q, got none", tc.want)
		}
		if strings.Contains(tc.err.Error(), "--") {
			t.Errorf("library message %q names a flag", tc.err)
		}
		if got := flagHints(tc.err); !slices.Contains(got, tc.want) {
			t.Errorf("hints for %q = %q, want %q among them", tc.err, got, tc.want)
		}
	}
}
