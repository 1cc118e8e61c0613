package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
)

// receiptsFile is where a root's receipts live.
const receiptsFile = "installed.json"

// Receipts records what skillpm installed in one root. It is written
// atomically and holds no timestamps unless SOURCE_DATE_EPOCH is set, so
// two installs from the same lock give byte-identical roots.
type Receipts struct {
	// Format is the receipts format version, 1.
	Format int      `json:"format"`
	Skills []Record `json:"skills"`
}

// Record is the receipt of one installed skill.
type Record struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Source is the repository the skill came from ("" for a local directory).
	Source string `json:"source,omitempty"`
	// LocalPath is set for a skill installed from a local directory (for
	// one from git, the reference at its commit).
	LocalPath string `json:"localPath,omitempty"`
	Digest    string `json:"digest,omitempty"`
	// Tree is the tree hash of the installed files; a mismatch means they
	// were edited by hand.
	Tree string `json:"tree"`
	// Tier is the effective tier; Claimed what the skill declares.
	Tier    skill.Tier      `json:"tier"`
	Claimed skill.Tier      `json:"claimed,omitempty"`
	Signers []sign.Identity `json:"signers,omitempty"`
	Grants  []Grant         `json:"grants,omitempty"`
	// Requested is the range asked for on the command line or in the
	// manifest; empty for a skill installed only as a dependency.
	Requested    string            `json:"requested,omitempty"`
	Dependencies map[string]string `json:"dependencies,omitempty"`
	InstalledAt  string            `json:"installedAt,omitempty"`

	// Git is the git reference a skill from git was asked for by (branch,
	// tag or range): what update resolves again.
	Git string `json:"git,omitempty"`

	// Mode is how the root holds the skill: ModeCopy (its files are in
	// the folder) or ModeLink (the folder is a symlink to Link). Receipts
	// written before links existed have none: a copy.
	Mode string `json:"mode,omitempty"`
	// Link is, for a link, the directory of the copy it points to.
	Link string `json:"link,omitempty"`
	// LinkedFrom are, for a copy, the symlinks skillpm made to it.
	LinkedFrom []string `json:"linkedFrom,omitempty"`
	// LinkOnly is true for a copy installed only for its links (install
	// --link for hosts none of which reads this root): removing the last
	// link removes it.
	LinkOnly bool `json:"linkOnly,omitempty"`
	// ReadBy are the hosts that load this copy, through its root or
	// through the links to it, as the hosts table said at install.
	ReadBy []string `json:"readBy,omitempty"`
}

// IsLink reports whether the receipt is of a symlink skillpm made.
func (r Record) IsLink() bool { return r.Link != "" }

// Grant records one declared permission and what allowed it: the tier, a
// --grant flag, --yes, or an answer at a prompt.
type Grant struct {
	Permission string `json:"permission"`
	By         string `json:"by"`
}

// Explicit reports whether the user asked for the skill by name.
func (r Record) Explicit() bool { return r.Requested != "" }

// ReadReceipts reads a root's receipts; a root without any has none.
func ReadReceipts(root string) (*Receipts, error) {
	data, err := os.ReadFile(filepath.Join(root, stateDir, receiptsFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Receipts{Format: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReceipt, err)
	}
	var r Receipts
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (move the file away and reinstall)", ErrReceipt, filepath.Join(root, stateDir, receiptsFile), err)
	}
	if err := r.check(filepath.Join(root, stateDir, receiptsFile)); err != nil {
		return nil, err
	}
	return &r, nil
}

// check refuses records that could make skillpm write or delete outside
// the root: a project's receipts are committed with it, so they are
// input, not skillpm's own notes. Every name is joined to the root to
// remove, replace or hash a folder; a link record's Link is the copy a
// remove updates, and is the folder of the same name.
func (r *Receipts) check(file string) error {
	for i, s := range r.Skills {
		bad := func(reason string) error {
			return &ReceiptError{File: file, Record: i + 1, Name: s.Name, Reason: reason}
		}
		if !skill.ValidName(s.Name) {
			return bad("the name is not a skill name (lowercase letters, digits and single hyphens), so its folder would not be one of the root's skills")
		}
		if s.Link != "" && (!filepath.IsAbs(s.Link) || filepath.Clean(s.Link) != s.Link || filepath.Base(s.Link) != s.Name) {
			return bad(fmt.Sprintf("the link's copy %q is not a folder named %s", s.Link, s.Name))
		}
	}
	return nil
}

// checkLinks refuses a link record whose copy is not in one of copies
// (the agents roots, AgentsRoots): following it would lock, update or
// remove a folder a committed receipt chose. skillpm makes the copies
// links point to there and nowhere else.
func (r *Receipts) checkLinks(file string, copies []string) error {
	for i, s := range r.Skills {
		if s.Link == "" || slices.Contains(copies, filepath.Dir(s.Link)) {
			continue
		}
		return &ReceiptError{File: file, Record: i + 1, Name: s.Name,
			Reason: fmt.Sprintf("the link's copy %s is not in an agents root (%s), the only place skillpm puts the copies links point to", s.Link, strings.Join(copies, " or "))}
	}
	return nil
}

// Get returns the record of name.
func (r *Receipts) Get(name string) (Record, bool) {
	for _, s := range r.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Record{}, false
}

// Put adds or replaces a record.
func (r *Receipts) Put(rec Record) {
	for i := range r.Skills {
		if r.Skills[i].Name == rec.Name {
			r.Skills[i] = rec
			return
		}
	}
	r.Skills = append(r.Skills, rec)
}

// Delete removes the record of name.
func (r *Receipts) Delete(name string) {
	out := r.Skills[:0]
	for _, s := range r.Skills {
		if s.Name != name {
			out = append(out, s)
		}
	}
	r.Skills = out
}

// Dependents returns the installed skills that depend on name, sorted.
func (r *Receipts) Dependents(name string) []string {
	var out []string
	for _, s := range r.Skills {
		if _, ok := s.Dependencies[name]; ok {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Marshal renders the receipts canonically: records sorted by name,
// indented, with a final newline.
func (r *Receipts) Marshal() ([]byte, error) {
	c := *r
	c.Format = 1
	c.Skills = append([]Record(nil), r.Skills...)
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	if c.Skills == nil {
		c.Skills = []Record{}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
