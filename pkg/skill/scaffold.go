package skill

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scaffold creates dir holding a new skill named after the directory's base
// name: a SKILL.md at version 0.1.0, claiming the experimental tier, whose
// only strict-validation finding is its placeholder description (the
// author must write one before publishing). It refuses a directory that
// already has content and writes nothing on failure.
func Scaffold(ctx context.Context, dir string) error {
	return ScaffoldWith(ctx, dir, ScaffoldOptions{Tier: "experimental"})
}

// ScaffoldOptions tunes [ScaffoldWith].
type ScaffoldOptions struct {
	// Tier is the security_tier the skill claims: verified, community or
	// experimental. Install uses the lower of the claimed tier and the
	// tier the trust policy gives its signer, so a skill meant to be
	// signed claims the tier its publisher will be trusted at.
	Tier string
}

// placeholderDescription starts the description Scaffold writes; a skill
// whose description still starts so is not ready to publish.
const placeholderDescription = "Describe what "

// isPlaceholderDescription reports whether d is still Scaffold's.
func isPlaceholderDescription(d string) bool {
	return strings.HasPrefix(d, placeholderDescription) && strings.Contains(d, " does and when to use it.")
}

// ScaffoldName is the name of the skill Scaffold makes in dir: its last
// element, of the absolute path so that "." names the current directory.
func ScaffoldName(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.Base(abs), nil
}

// ScaffoldWith is Scaffold claiming opts.Tier.
func ScaffoldWith(ctx context.Context, dir string, opts ScaffoldOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch opts.Tier {
	case "verified", "community", "experimental":
	default:
		return fmt.Errorf("tier %q: use verified, community or experimental", opts.Tier)
	}
	name, err := ScaffoldName(dir)
	if err != nil {
		return err
	}
	if !ValidName(name) {
		return fmt.Errorf("%q is %w: use lower-case words joined by hyphens, e.g. %q", name, ErrBadName, SuggestName(name))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: %w", dir, ErrExists)
	}
	title := strings.ReplaceAll(name, "-", " ")
	content := fmt.Sprintf(`---
name: %s
description: `+placeholderDescription+`%s does and when to use it. Use when the user asks to …
version: 0.1.0
metadata:
  gaia:
    security_tier: %s
    permissions: []
    # The skills this one needs, by name and version range:
    # requirements:
    #   skills:
    #     other-skill: ^1
---
# %s

Write the instructions the agent follows when this skill is active:
the steps, the tools to use, and what to produce.
`, name, title, opts.Tier, strings.ToUpper(title[:1])+title[1:])
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		// An empty directory that exists already (the current one, for
		// "init .") keeps its identity: a shell in it stays in it.
		return writeNew(filepath.Join(dir, SkillFile), []byte(content))
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".init-")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, SkillFile), []byte(content), 0o644); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// writeNew writes path whole or not at all: a temporary file beside it,
// renamed into place.
func writeNew(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".init-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
