package install

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/resolve"
)

// journalFile records a commit in progress so that a crash at any point is
// finished by the next skillpm run on the root.
const journalFile = "journal.json"

// txPrefix names the per-transaction work directories under .skillpm.
const txPrefix = "tx-"

// stagePrefix names the staging areas of one process under .skillpm:
// what an install stages and audits without holding the root's lock.
// Each has the lock file stage-<id>.lock beside it, held by its owner,
// so that recovery by other processes removes only staging whose owner
// is gone.
const stagePrefix = "stage-"

// journal is the on-disk record of a commit.
type journal struct {
	ID  string  `json:"id"`
	Ops []txnOp `json:"ops"`
	// Receipts is the full receipts file to write once every rename is done.
	Receipts []byte `json:"receipts"`
	// Files are other files to write atomically as part of the commit
	// (the project's skills.lock).
	Files []txnFile `json:"files,omitempty"`
}

type txnOp struct {
	Name string `json:"name"`
	// Remove is true when the skill is removed rather than replaced.
	Remove bool `json:"remove,omitempty"`
	// Quarantine, when set, is the quarantine entry (quarantine.go) the
	// removed skill is moved into instead of being deleted.
	Quarantine string `json:"quarantine,omitempty"`
	// Restore, when set, is the quarantine entry the skill is moved back
	// from (nothing is staged).
	Restore string `json:"restore,omitempty"`
}

type txnFile struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// txn stages skills inside a root and commits them with renames. Create it
// with beginTxn while holding the root's lock.
type txn struct {
	root  string
	id    string
	ops   []txnOp
	files []txnFile
	// prefix is txPrefix, or stagePrefix while the transaction is a
	// staging area not yet claimed (beginStage, claim).
	prefix string
	// owner is the staging area's lock, held until claim or Abort.
	owner *flock.Flock
	// hook, when set, is called at each step of Commit with the step's name;
	// returning an error stops Commit right there, as a crash would, leaving
	// the root for recoverTxn. It exists for crash-safety tests.
	hook func(step string) error
}

// beginTxn starts a transaction in root. Call recoverTxn first.
func beginTxn(root string) (*txn, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	t := &txn{root: root, id: hex.EncodeToString(b[:]), prefix: txPrefix}
	for _, d := range []string{t.dir("new"), t.dir("old")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// beginStage starts a transaction whose staging is this process's own
// (stage-<id> under root's state folder): it is filled and audited
// without the root's lock, which claim takes back before the commit.
// The owner lock is held before the folder exists, so another
// process's recovery never removes it while this one lives.
func beginStage(root string) (*txn, error) {
	dir := filepath.Join(root, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A few tries: a lost race with a recovery is rare, and an error that
	// persists must not spin.
	for try := 0; ; try++ {
		if try == 8 {
			return nil, fmt.Errorf("no staging area could be made in %s", dir)
		}
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		t := &txn{root: root, id: hex.EncodeToString(b[:]), prefix: stagePrefix}
		path := t.ownerPath()
		fl := flock.New(path)
		ok, err := fl.TryLock()
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// A recovery that took this file first and removed it leaves us
		// holding a lock nobody else can see: start again.
		held, herr := fl.Stat()
		cur, cerr := os.Stat(path)
		if herr != nil || cerr != nil || !os.SameFile(held, cur) {
			fl.Unlock()
			continue
		}
		t.owner = fl
		for _, d := range []string{t.dir("new"), t.dir("old")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Abort()
				return nil, err
			}
		}
		return t, nil
	}
}

func (t *txn) ownerPath() string {
	return filepath.Join(t.root, stateDir, stagePrefix+t.id+".lock")
}

// claim makes a staging area an ordinary transaction of the root: the
// very folder that was staged and audited is renamed, so the bytes
// committed are the bytes judged. Call it with the root's lock held.
func (t *txn) claim() error {
	if t.prefix == txPrefix {
		return nil
	}
	from := filepath.Join(t.root, stateDir, stagePrefix+t.id)
	if err := os.Rename(from, filepath.Join(t.root, stateDir, txPrefix+t.id)); err != nil {
		return fmt.Errorf("claiming the staged skills: %w", err)
	}
	t.prefix = txPrefix
	t.release()
	return nil
}

// release lets go of (and removes) a staging area's owner lock.
func (t *txn) release() {
	if t.owner == nil {
		return
	}
	// Unlocked first (a locked file cannot be removed everywhere): the
	// staging folder is gone or claimed by now, so a recovery that takes
	// the lock in between finds nothing to remove but the file.
	t.owner.Unlock()
	_ = os.Remove(t.ownerPath())
	t.owner = nil
}

func (t *txn) dir(kind string) string {
	return filepath.Join(t.root, stateDir, t.prefix+t.id, kind)
}

// StageDir returns where the new copy of skill name is to be unpacked. The
// directory does not exist yet; it is on the root's filesystem, so the
// final rename is atomic.
func (t *txn) StageDir(name string) string {
	t.ops = append(t.ops, txnOp{Name: name})
	return filepath.Join(t.dir("new"), name)
}

// StageLink stages skill name as a symlink whose content is target; the
// commit renames the link into place like a staged folder, so a crash
// leaves the old entry or the link, never neither.
func (t *txn) StageLink(name, target string) error {
	return os.Symlink(target, t.StageDir(name))
}

// Remove schedules removal of the installed skill name.
func (t *txn) Remove(name string) {
	t.ops = append(t.ops, txnOp{Name: name, Remove: true})
}

// WriteFile schedules an atomic write of an outside file (the lockfile)
// as part of the commit.
func (t *txn) WriteFile(path string, data []byte) {
	// Absolute, so that recovery from another working directory writes
	// the same file, and so that check can place it.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	t.files = append(t.files, txnFile{Path: path, Data: data})
}

// Abort discards everything staged. The root is untouched.
func (t *txn) Abort() error {
	err := os.RemoveAll(filepath.Join(t.root, stateDir, t.prefix+t.id))
	t.release()
	return err
}

func (t *txn) step(name string) error {
	if t.hook == nil {
		return nil
	}
	return t.hook(name)
}

// Commit makes the staged changes and the new receipts visible. Once the
// journal is written the commit is decided: a crash after that point is
// rolled forward by recoverTxn; a crash before it leaves the root as it was.
func (t *txn) Commit(ctx context.Context, receipts *Receipts) error {
	if err := ctx.Err(); err != nil {
		t.Abort()
		return err
	}
	if err := t.claim(); err != nil {
		t.Abort()
		return err
	}
	rb, err := receipts.Marshal()
	if err != nil {
		t.Abort()
		return err
	}
	if err := t.step("staged"); err != nil {
		return err
	}
	j := journal{ID: t.id, Ops: t.ops, Receipts: rb, Files: t.files}
	jb, err := json.Marshal(j)
	if err != nil {
		t.Abort()
		return err
	}
	if err := writeFileAtomic(filepath.Join(t.root, stateDir, journalFile), jb, 0o644); err != nil {
		t.Abort()
		return fmt.Errorf("writing the install journal: %w", err)
	}
	return rollForward(t.root, j, t.step)
}

// rollForward performs (or finishes) a journaled commit. Every step is
// idempotent, so it is safe to run again after a crash at any point.
func rollForward(root string, j journal, step func(string) error) error {
	tx := filepath.Join(root, stateDir, txPrefix+j.ID)
	if err := step("journal"); err != nil {
		return err
	}
	for _, op := range j.Ops {
		if op.Restore != "" {
			if err := restoreOp(root, op); err != nil {
				return err
			}
			if err := step("restore:" + op.Name); err != nil {
				return err
			}
			continue
		}
		target := filepath.Join(root, op.Name)
		staged := filepath.Join(tx, "new", op.Name)
		backup := filepath.Join(tx, "old", op.Name)
		_, stagedErr := os.Lstat(staged)
		pending := op.Remove || stagedErr == nil
		if !pending {
			continue // already moved into place
		}
		if exists(target) && !exists(backup) {
			if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
				return err
			}
			if err := os.Rename(target, backup); err != nil {
				return fmt.Errorf("moving aside %s: %w", target, err)
			}
		}
		if err := step("old:" + op.Name); err != nil {
			return err
		}
		if !op.Remove {
			if err := os.Rename(staged, target); err != nil {
				return fmt.Errorf("moving %s into place: %w", op.Name, err)
			}
		}
		if op.Quarantine != "" {
			if err := quarantineOp(root, backup, op); err != nil {
				return err
			}
		}
		if err := step("new:" + op.Name); err != nil {
			return err
		}
	}
	if err := syncDir(root); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(root, stateDir, receiptsFile), j.Receipts, 0o644); err != nil {
		return fmt.Errorf("writing receipts: %w", err)
	}
	if err := step("receipts"); err != nil {
		return err
	}
	for _, f := range j.Files {
		if err := writeFileAtomic(f.Path, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	if err := step("files"); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(root, stateDir, journalFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := step("journal-removed"); err != nil {
		return err
	}
	return os.RemoveAll(tx)
}

// check refuses a journal that could move, remove or write anything but
// the root's own skills and the project's lock: the journal sits in the
// root, which a project commits, so it is input like the receipts.
func (j journal) check(file, root string) error {
	if _, err := hex.DecodeString(j.ID); err != nil || j.ID == "" {
		return &ReceiptError{File: file, Record: 0, Name: j.ID, Reason: "the transaction id is not one skillpm makes (hexadecimal)"}
	}
	for i, op := range j.Ops {
		if !skill.ValidName(op.Name) {
			return &ReceiptError{File: file, Record: i + 1, Name: op.Name, Reason: "the name is not a skill name, so it would move or remove a folder that is not one of the root's skills"}
		}
		for _, id := range []string{op.Quarantine, op.Restore} {
			if id != "" && !validQuarantineID(id) {
				return &ReceiptError{File: file, Record: i + 1, Name: id, Reason: "the quarantine entry is not one skillpm makes (a skill name, a hyphen, a hexadecimal id), so it would move a folder outside the root's quarantine"}
			}
		}
	}
	// The journal sits in ROOT/.skillpm, so the quarantine's receipts it
	// may write are ROOT/.skillpm/quarantine/ID/quarantine.json.
	state := filepath.Dir(file)
	for i, f := range j.Files {
		if filepath.Base(f.Path) == resolve.LockFile {
			if reason := lockOutside(root, f.Path); reason != "" {
				return &ReceiptError{File: file, Record: len(j.Ops) + i + 1, Name: f.Path, Reason: reason}
			}
			continue
		}
		id := filepath.Base(filepath.Dir(f.Path))
		if validQuarantineID(id) && f.Path == filepath.Join(state, quarantineDir, id, quarantineReceipt) {
			continue
		}
		return &ReceiptError{File: file, Record: len(j.Ops) + i + 1, Name: f.Path, Reason: "a transaction writes no file but the project's " + resolve.LockFile + " and the quarantine's receipts"}
	}
	return nil
}

// validQuarantineID says whether id has the form Quarantine gives an
// entry: a skill name, a hyphen and the transaction's hexadecimal id.
func validQuarantineID(id string) bool {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return false
	}
	_, err := hex.DecodeString(id[i+1:])
	return err == nil && id[i+1:] != "" && skill.ValidName(id[:i])
}

// lockOutside says why a journal in root may not write the lock file
// path, "" when it may. A root inside a project (the nearest folder
// above it holding a manifest or a lock) writes that project's lock and
// no other: a cloned project's journal cannot reach another project's
// lock, or one above the clone. A root in no project (a user root, a
// folder named for the install) writes the lock of a project that has a
// manifest beside it.
func lockOutside(root, path string) string {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return "the path is not absolute and clean, as skillpm writes it"
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "the root's folder cannot be placed (" + err.Error() + ")"
	}
	if proj := projectOf(abs); proj != "" {
		if filepath.Dir(path) != proj {
			return "it is not the " + resolve.LockFile + " of the project the root belongs to, " + proj
		}
		return ""
	}
	if !holdsAny(filepath.Dir(path), resolve.ManifestFile, resolve.AgentManifestFile) {
		return "no project manifest is beside it, so it is no project's " + resolve.LockFile
	}
	return ""
}

// projectOf is the nearest folder above root holding a project manifest
// or lock, "" when none does.
func projectOf(root string) string {
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if holdsAny(d, resolve.ManifestFile, resolve.AgentManifestFile, resolve.LockFile) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// holdsAny reports whether dir holds a regular file of one of names.
func holdsAny(dir string, names ...string) bool {
	for _, n := range names {
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// recoverTxn finishes a commit that a crash interrupted after its journal was
// written, and discards the staging of one interrupted before. Call it with
// the root's lock held, before reading receipts.
func recoverTxn(ctx context.Context, root string) (recovered bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	jb, err := os.ReadFile(filepath.Join(root, stateDir, journalFile))
	switch {
	case err == nil:
		var j journal
		if err := json.Unmarshal(jb, &j); err != nil {
			return false, fmt.Errorf("the install journal %s is corrupt (%v); inspect %s and remove the journal to continue",
				filepath.Join(root, stateDir, journalFile), err, filepath.Join(root, stateDir))
		}
		if err := j.check(filepath.Join(root, stateDir, journalFile), root); err != nil {
			return false, err
		}
		if err := rollForward(root, j, func(string) error { return nil }); err != nil {
			return false, fmt.Errorf("finishing an interrupted install in %s: %w", root, err)
		}
		recovered = true
	case !errors.Is(err, os.ErrNotExist):
		return false, err
	}
	// Staging left by a transaction that never reached its journal.
	entries, err := os.ReadDir(filepath.Join(root, stateDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return recovered, err
	}
	for _, e := range entries {
		// Staging dirs, and the temporary files of atomic writes (journal,
		// receipts) a crash left before their rename.
		stale := (e.IsDir() && strings.HasPrefix(e.Name(), txPrefix)) ||
			(!e.IsDir() && strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-"))
		if stale {
			if err := os.RemoveAll(filepath.Join(root, stateDir, e.Name())); err != nil {
				return recovered, err
			}
			recovered = true
		}
		if strings.HasPrefix(e.Name(), stagePrefix) {
			gone, err := removeOrphanStage(root, e.Name())
			if err != nil {
				return recovered, err
			}
			recovered = recovered || gone
		}
	}
	return recovered, nil
}

// removeOrphanStage removes the staging area (or the lone owner lock)
// named entry when no process holds its owner lock any more: the
// process that staged it died. A live owner's staging is left alone.
func removeOrphanStage(root, entry string) (bool, error) {
	id := strings.TrimSuffix(strings.TrimPrefix(entry, stagePrefix), ".lock")
	if _, err := hex.DecodeString(id); err != nil || id == "" {
		return false, nil // not a name skillpm makes
	}
	t := &txn{root: root, id: id, prefix: stagePrefix}
	fl := flock.New(t.ownerPath())
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return false, err
	}
	if err := os.RemoveAll(filepath.Join(root, stateDir, stagePrefix+id)); err != nil {
		fl.Unlock()
		return false, err
	}
	fl.Unlock()
	if err := os.Remove(t.ownerPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// Pending is a transaction a crash interrupted after its journal was
// written: the next skillpm command on the root completes it.
type Pending struct {
	// Root is the root's directory.
	Root string `json:"root"`
	// Install and Remove name the skills it installs and removes.
	Install []string `json:"install,omitempty"`
	Remove  []string `json:"remove,omitempty"`
}

// String says what is pending and what completes it.
func (p Pending) String() string {
	var parts []string
	if len(p.Install) > 0 {
		parts = append(parts, "install of "+strings.Join(p.Install, ", "))
	}
	if len(p.Remove) > 0 {
		parts = append(parts, "removal of "+strings.Join(p.Remove, ", "))
	}
	return fmt.Sprintf("interrupted %s in %s; the next skillpm command on it completes it", strings.Join(parts, " and "), p.Root)
}

// PendingIn reads root's journal without taking the lock or changing
// anything: nil when no transaction is pending.
func PendingIn(root string) (*Pending, error) {
	jb, err := os.ReadFile(filepath.Join(root, stateDir, journalFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(jb, &j); err != nil {
		return nil, fmt.Errorf("the install journal %s is corrupt (%v); inspect %s and remove the journal to continue",
			filepath.Join(root, stateDir, journalFile), err, filepath.Join(root, stateDir))
	}
	p := &Pending{Root: root}
	for _, op := range j.Ops {
		if op.Remove {
			p.Remove = append(p.Remove, op.Name)
		} else {
			p.Install = append(p.Install, op.Name)
		}
	}
	return p, nil
}
