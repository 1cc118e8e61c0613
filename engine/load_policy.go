package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/approval"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

// PolicyRequest says where a command looks for its trust policy
// (LoadPolicy).
type PolicyRequest struct {
	// File is the policy named on the command line (--policy); it wins.
	File string
	// Manifest is the project manifest, "" for the one in the working
	// directory (resolve.FindManifest): its policy: names the project's policy.
	Manifest string
	// Configured is config.yaml's policy:, read when the project names
	// none (or names one this machine has not approved).
	Configured string
}

// PolicyChoice is the trust policy a command obeys and where it came
// from.
type PolicyChoice struct {
	// Policy is the loaded policy; nil when File does not exist yet (a
	// project's policy: naming a file that trust add will create), with
	// LoadPolicy's error wrapping fs.ErrNotExist.
	Policy *tiers.Policy
	// File is the policy's file, "" for the built-in default: the file
	// skillpm trust add edits.
	File string
	// Unapproved is the project policy set aside because this machine has
	// not approved its current bytes; Changed says it was approved once
	// and has changed since. Policy and File are then what the project's
	// absence would give.
	Unapproved string
	Changed    bool
}

// LoadPolicy is the one rule for which trust policy a command obeys:
// r.File when set, else the policy: of the project manifest (read
// against the manifest's directory), else r.Configured, else the search
// path, else the built-in default (tiers.LoadEffective).
//
// A project's policy counts only while this machine has approved exactly
// its bytes (ApprovePolicy, or TrustKey writing it): a repository that
// ships a policy trusting its own key cannot raise its skills' tier on
// the machine that clones it. An unapproved or changed project policy is
// reported in PolicyChoice.Unapproved and the choice falls through to
// r.Configured. The policy is loaded once, here, and the approval is
// checked against the bytes that load read, so the policy a command
// obeys is the one approved.
func LoadPolicy(ctx context.Context, r PolicyRequest) (*PolicyChoice, error) {
	getenv := os.Getenv
	load := func(file string, c *PolicyChoice) (*PolicyChoice, error) {
		if c.File = tiers.Find(file, getenv, os.Stat); c.File == "" {
			c.Policy = tiers.Default()
			return c, nil
		}
		p, err := tiers.Load(ctx, c.File)
		c.Policy = p
		return c, err
	}
	if r.File != "" {
		return load(r.File, &PolicyChoice{})
	}
	project, err := projectPolicy(ctx, r.Manifest)
	if err != nil || project == "" {
		if err != nil {
			return nil, err
		}
		return load(r.Configured, &PolicyChoice{})
	}
	p, err := tiers.Load(ctx, project)
	if err != nil {
		// A project policy that does not exist yet is the file trust add
		// creates; one that does not parse stops the command, naming it.
		return &PolicyChoice{File: project}, err
	}
	store := approval.Default(getenv)
	if store.Approved(project, p.Digest) {
		return &PolicyChoice{Policy: p, File: project}, nil
	}
	_, before := store.Lookup(project)
	return load(r.Configured, &PolicyChoice{Unapproved: project, Changed: before})
}

// projectPolicy returns the policy file the project manifest names
// (absolute, so that messages say which project's it is), "" when there
// is no project or it names none.
func projectPolicy(ctx context.Context, manifest string) (string, error) {
	mpath, _ := resolve.FindManifest(manifest, "")
	if filepath.Base(mpath) != resolve.ManifestFile {
		return "", nil
	}
	m, err := resolve.ReadManifest(ctx, mpath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", invalid(err)
	case m.Policy == "":
		return "", nil
	case filepath.IsAbs(m.Policy):
		return m.Policy, nil
	}
	p := filepath.Join(filepath.Dir(mpath), m.Policy)
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p, nil
}
