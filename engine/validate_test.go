package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/pkg/skill"
)

// TestValidate: a valid and an invalid skill are both results (counted by
// skill.Summarize); a directory to search that does not
// exist is ErrInvalidRequest.
func TestValidate(t *testing.T) {
	ctx := context.Background()
	v, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: []string{
		filepath.Join("..", "testdata", "skills", "web-research"),
		filepath.Join("..", "testdata", "invalid", "description-missing"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if sum := skill.Summarize(v.Results); sum.Skills != 2 || sum.Valid != 1 || sum.Errors == 0 {
		t.Errorf("Validate = summary %+v; want 2 skills, 1 valid, errors counted", sum)
	}
	rec, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: []string{filepath.Join("..", "testdata", "skills")}, Recursive: true, Lenient: true})
	if err != nil || len(rec.Results) < 2 {
		t.Errorf("recursive lenient: %+v, %v; want several skills found", rec, err)
	}
	_, err = engine.Validate(ctx, engine.ValidateRequest{Dirs: []string{filepath.Join(t.TempDir(), "nothing")}, Recursive: true})
	if !errors.Is(err, engine.ErrInvalidRequest) {
		t.Errorf("a missing directory to search: %v, want ErrInvalidRequest", err)
	}
}

// TestValidateHost: for GAIA, a permission its loader refuses is an
// error the format alone does not make; another known host reads the
// format alone, and an unknown one is refused.
func TestValidateHost(t *testing.T) {
	// The hosts table is the built-in one: no user's hosts file.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv(hosts.EnvFile, "")
	ctx := context.Background()
	dirs := []string{filepath.Join("..", "testdata", "skills", "rag-search")}
	plain, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "claude"})
	if err != nil || skill.Summarize(plain.Results).Valid != 1 {
		t.Fatalf("claude: %+v, %v; want valid", plain, err)
	}
	v, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "gaia"})
	if err != nil {
		t.Fatal(err)
	}
	if sum := skill.Summarize(v.Results); sum.Valid != 0 || sum.Codes[skill.CodeGaiaRefused] == 0 {
		t.Errorf("gaia: summary %+v; want rag-search's filesystem:read refused", sum)
	}
	if _, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "no-such-host"}); !errors.Is(err, hosts.ErrUnknownHost) {
		t.Errorf("unknown host: %v, want ErrUnknownHost", err)
	}
}
