package hosts

import (
	"context"
	"os"
	"path/filepath"
)

// Detect is how a host is found on the machine: any one of its paths
// existing, or any one of its binaries on $PATH, means it is present.
type Detect struct {
	// Paths are files or folders the host creates (its config folder, a
	// project marker); "~/" is the home directory, a relative path is under
	// the project (working) directory, and Env moves one as it moves a
	// root.
	Paths []Dir `yaml:"paths,omitempty" json:"paths,omitempty"`
	// Binaries are command names looked up in the directories of $PATH.
	Binaries []string `yaml:"binaries,omitempty" json:"binaries,omitempty"`
}

// Presence is whether one host was found, and by what.
type Presence struct {
	// Host is the host id.
	Host string `json:"host"`
	// Present is true when a path or a binary of the host's Detect exists.
	Present bool `json:"present"`
	// By is the first path or binary found, "" when absent.
	By string `json:"by,omitempty"`
}

// Detect tells, for every host of the table in id order, whether it is
// present: the first of its Detect paths that exists, else the first of
// its binaries found on env's $PATH. A path that does not resolve (no home
// directory) counts as absent.
func (t *Table) Detect(ctx context.Context, env Env) ([]Presence, error) {
	out := make([]Presence, 0, len(t.hosts))
	for _, h := range t.hosts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, h.present(env))
	}
	return out, nil
}

// Detected returns the ids of the hosts present on the machine, sorted:
// the hosts a placement with no host named can serve.
func (t *Table) Detected(ctx context.Context, env Env) ([]string, error) {
	ps, err := t.Detect(ctx, env)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range ps {
		if p.Present {
			ids = append(ids, p.Host)
		}
	}
	return ids, nil
}

// Presence tells whether host id is present, as Detect does for all.
func (t *Table) Presence(ctx context.Context, id string, env Env) (Presence, error) {
	if err := ctx.Err(); err != nil {
		return Presence{}, err
	}
	h, err := t.Get(id)
	if err != nil {
		return Presence{}, err
	}
	return h.present(env), nil
}

func (h Host) present(env Env) Presence {
	p := Presence{Host: h.ID}
	for _, d := range h.Detect.Paths {
		dir, err := d.Resolve(env)
		if err != nil {
			continue // no home: a user path cannot be there
		}
		if exists(dir) {
			p.Present, p.By = true, dir
			return p
		}
	}
	for _, b := range h.Detect.Binaries {
		if path := lookPath(b, env); path != "" {
			p.Present, p.By = true, path
			return p
		}
	}
	return p
}

// exists reports whether path can be stat'ed; any error (not there, a
// file where a folder was expected, no permission) means this user has no
// host there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// lookPath finds an executable regular file named name in the absolute
// directories of env's $PATH. Relative entries (and the empty one, which
// shells read as ".") are skipped: a binary in the project is not an
// installed host.
func lookPath(name string, env Env) string {
	for _, dir := range filepath.SplitList(env.Lookup("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}
