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

// TestValidate: a valid and an invalid skill are both results (counted in
// the summary, strict by default); a directory to search that does not
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
	if v.Mode != skill.Strict || v.Summary.Skills != 2 || v.Summary.Valid != 1 || v.Summary.Errors == 0 || len(v.Results) != 2 {
		t.Errorf("Validate = mode %v, summary %+v; want strict, 2 skills, 1 valid, errors counted", v.Mode, v.Summary)
	}
	rec, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: []string{filepath.Join("..", "testdata", "skills")}, Recursive: true, Lenient: true})
	if err != nil || rec.Mode != skill.Lenient || rec.Summary.Skills < 2 {
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
	ctx := context.Background()
	dirs := []string{filepath.Join("..", "testdata", "skills", "rag-search")}
	plain, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "claude", Hosts: hosts.Builtin()})
	if err != nil || plain.Summary.Valid != 1 {
		t.Fatalf("claude: %+v, %v; want valid", plain, err)
	}
	v, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "gaia", Hosts: hosts.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	if v.Summary.Valid != 0 || v.Summary.Codes[skill.CodeGaiaRefused] == 0 {
		t.Errorf("gaia: summary %+v; want rag-search's filesystem:read refused", v.Summary)
	}
	if _, err := engine.Validate(ctx, engine.ValidateRequest{Dirs: dirs, Host: "no-such-host", Hosts: hosts.Builtin()}); !errors.Is(err, hosts.ErrUnknownHost) {
		t.Errorf("unknown host: %v, want ErrUnknownHost", err)
	}
}
