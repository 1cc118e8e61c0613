package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Installed describes one installed copy of a skill, from its receipt.
type Installed struct {
	Root Root   `json:"root"`
	Dir  string `json:"dir"`
	Record
	// Edited is true when the files differ from the receipt's tree hash;
	// Missing when the directory is gone.
	Edited  bool `json:"edited"`
	Missing bool `json:"missing,omitempty"`
	// Drift says how a copy in a project root differs from the project's
	// lock (DescribeAgainstLock), whose tier then replaces the receipt's.
	Drift string `json:"drift,omitempty"`
	// Dependents are the skills of the same root that depend on it.
	Dependents []string `json:"dependents"`
	// ShadowedBy is the directory of an earlier copy of the same name in
	// another root of the same host, which the host reads instead.
	ShadowedBy string `json:"shadowedBy,omitempty"`
}

// Describe returns every copy of the skill name that skillpm installed in
// roots (in the order given), or none. Roots that do not exist are
// skipped.
func Describe(ctx context.Context, roots []Root, name string) ([]Installed, error) {
	var out []Installed
	first := map[HostID]string{}
	for _, r := range roots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(r.Dir, name)
		_, statErr := os.Stat(dir)
		rec, err := ReadReceipts(r.Dir)
		if err != nil {
			return nil, err
		}
		rr, ok := rec.Get(name)
		if !ok {
			if statErr == nil {
				if _, seen := first[r.Host]; !seen {
					first[r.Host] = dir
				}
			}
			continue
		}
		in := Installed{Root: r, Dir: dir, Record: rr, Dependents: rec.Dependents(name)}
		if in.Dependents == nil {
			in.Dependents = []string{}
		}
		switch {
		case errors.Is(statErr, os.ErrNotExist):
			in.Missing = true
		default:
			if sum, err := treeOf(ctx, dir); err != nil || sum.TreeHash != rr.Tree {
				in.Edited = true
			}
		}
		if w, seen := first[r.Host]; seen && !sameCopy(w, dir) {
			in.ShadowedBy = w
		} else if !in.Missing {
			first[r.Host] = dir
		}
		out = append(out, in)
	}
	return out, nil
}
