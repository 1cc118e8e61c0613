package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpm/skillpm/pkg/archive"
)

// quarantineDir is the folder, in a root's state directory, that
// quarantined copies are moved to: on the root's filesystem (so the move
// is a rename, crash-safe under the journal) and out of what agents load.
const quarantineDir = "quarantine"

// quarantineReceipt is the file, in each quarantine entry, saying what
// was moved, from where and why.
const quarantineReceipt = "quarantine.json"

// QuarantineItem asks for one installed copy to be quarantined: the
// version the advisory names and the digests (manifest, tree) it names,
// with why.
type QuarantineItem struct {
	Name, Version string
	// Digests the advisory names; empty when it names versions only.
	Digests []string
	// Why is the advisory and its summary; Advisory its id.
	Why, Advisory string
}

// Quarantined is the receipt of a quarantined copy.
type Quarantined struct {
	// ID is the entry's folder name under the root's quarantine.
	ID string `json:"id"`
	// Name is the skill; Root the root it was moved out of.
	Name string `json:"name"`
	Root string `json:"root"`
	// Record is its receipt as it was, put back by Restore.
	Record Record `json:"record"`
	// Tree is the tree hash of the files moved.
	Tree string `json:"tree"`
	// Advisory and Why say why.
	Advisory string `json:"advisory"`
	Why      string `json:"why"`
	// At is when.
	At string `json:"at"`
}

// QuarantineResult says what was moved and what was left in place.
type QuarantineResult struct {
	Moved []Quarantined `json:"moved"`
	// Left says, per copy not moved, why.
	Left []string `json:"left,omitempty"`
}

// QuarantineOptions controls Quarantine and Restore.
type QuarantineOptions struct {
	// LockWait bounds the wait for another skillpm; 0 means DefaultLockWait.
	LockWait time.Duration
	// Now is the time recorded; zero means time.Now().
	Now time.Time
	// hook is passed to the transaction (crash-safety tests; not API).
	hook func(step string) error
}

// Quarantine moves the copies items name out of root into its quarantine
// folder, in one journaled transaction with the receipts, each with a
// receipt saying why and from where. A copy moves only when its bytes on
// disk match exactly: their tree hash is a digest the item names, or the
// copy is the version the item names and its files are those skillpm
// installed (the receipt's tree hash). Anything else (not installed,
// another version, edited files, a link) is left in place, and Left
// says why.
func Quarantine(ctx context.Context, root string, items []QuarantineItem, opts QuarantineOptions) (*QuarantineResult, error) {
	lock, rec, err := lockAndRead(ctx, root, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	res := &QuarantineResult{}
	type move struct {
		q   Quarantined
		rec Record
	}
	var moves []move
	for _, it := range items {
		dir := filepath.Join(root, it.Name)
		r, ok := rec.Get(it.Name)
		if !ok || r.IsLink() {
			res.Left = append(res.Left, fmt.Sprintf("%s: not a copy skillpm installed here: left in place", dir))
			continue
		}
		sum, err := archive.TreeHashInstalled(ctx, dir)
		if err != nil {
			res.Left = append(res.Left, fmt.Sprintf("%s: its files could not be hashed (%v): left in place", dir, err))
			continue
		}
		byDigest := slices.Contains(it.Digests, sum.TreeHash) || (r.Digest != "" && slices.Contains(it.Digests, r.Digest) && sum.TreeHash == r.Tree)
		byVersion := r.Version == it.Version && r.Tree != "" && sum.TreeHash == r.Tree
		if !byDigest && !byVersion {
			res.Left = append(res.Left, fmt.Sprintf("%s: holds %s@%s with tree %s, which the advisory does not name exactly (edited, or another version): left in place", dir, r.Name, r.Version, sum.TreeHash))
			continue
		}
		moves = append(moves, move{Quarantined{Name: it.Name, Root: root, Record: r, Tree: sum.TreeHash, Advisory: it.Advisory, Why: it.Why, At: now.UTC().Format(time.RFC3339)}, r})
	}
	if len(moves) == 0 {
		return res, nil
	}
	tx, err := beginTxn(root)
	if err != nil {
		return nil, err
	}
	tx.hook = opts.hook
	for _, m := range moves {
		m.q.ID = m.q.Name + "-" + tx.id
		entry := filepath.Join(root, stateDir, quarantineDir, m.q.ID)
		if err := os.MkdirAll(entry, 0o755); err != nil {
			tx.Abort()
			return nil, err
		}
		data, err := json.MarshalIndent(m.q, "", "  ")
		if err != nil {
			tx.Abort()
			return nil, err
		}
		tx.ops = append(tx.ops, txnOp{Name: m.q.Name, Remove: true, Quarantine: m.q.ID})
		tx.WriteFile(filepath.Join(entry, quarantineReceipt), data)
		rec.Delete(m.q.Name)
		res.Moved = append(res.Moved, m.q)
	}
	if err := tx.Commit(ctx, rec); err != nil {
		return nil, err
	}
	return res, nil
}

// quarantineOp moves a removed skill's backup into its quarantine entry.
// Idempotent: a crash after the move finds the backup gone.
func quarantineOp(root, backup string, op txnOp) error {
	dest := filepath.Join(root, stateDir, quarantineDir, op.Quarantine, op.Name)
	if !exists(backup) || exists(dest) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	if err := os.Rename(backup, dest); err != nil {
		return fmt.Errorf("moving %s into quarantine: %w", op.Name, err)
	}
	return nil
}

// restoreOp moves a quarantined copy back into place and drops its
// entry. Idempotent: a crash after the move finds the copy in place.
func restoreOp(root string, op txnOp) error {
	entry := filepath.Join(root, stateDir, quarantineDir, op.Restore)
	src, target := filepath.Join(entry, op.Name), filepath.Join(root, op.Name)
	if exists(src) && !exists(target) {
		if err := os.Rename(src, target); err != nil {
			return fmt.Errorf("moving %s back from quarantine: %w", op.Name, err)
		}
	}
	if exists(target) && !exists(src) {
		return os.RemoveAll(entry)
	}
	return nil
}

// ListQuarantine returns the receipts of root's quarantined copies.
func ListQuarantine(root string) ([]Quarantined, error) {
	base := filepath.Join(root, stateDir, quarantineDir)
	ents, err := os.ReadDir(base)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Quarantined
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(base, e.Name(), quarantineReceipt))
		if errors.Is(err, os.ErrNotExist) {
			continue // a quarantine whose commit never happened
		}
		if err != nil {
			return nil, err
		}
		var q Quarantined
		if err := json.Unmarshal(data, &q); err != nil || q.ID != e.Name() || q.Name == "" || strings.ContainsAny(q.Name, `/\`) {
			return nil, fmt.Errorf("%s: not a quarantine receipt", filepath.Join(base, e.Name(), quarantineReceipt))
		}
		out = append(out, q)
	}
	return out, nil
}

// Restore puts the quarantined copies of names back into root, byte for
// byte, with their receipts, in one journaled transaction. A name with no
// quarantined copy, or whose place is taken, is refused and nothing moves.
func Restore(ctx context.Context, root string, names []string, opts QuarantineOptions) ([]Quarantined, error) {
	lock, rec, err := lockAndRead(ctx, root, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	qs, err := ListQuarantine(root)
	if err != nil {
		return nil, err
	}
	var todo []Quarantined
	for _, n := range names {
		i := slices.IndexFunc(qs, func(q Quarantined) bool { return q.Name == n })
		if i < 0 {
			continue
		}
		if _, ok := rec.Get(n); ok || exists(filepath.Join(root, n)) {
			return nil, fmt.Errorf("%w: %s: %s is installed again; remove it before restoring the quarantined copy", ErrPlaceTaken, root, n)
		}
		todo = append(todo, qs[i])
	}
	if len(todo) == 0 {
		return nil, nil
	}
	tx, err := beginTxn(root)
	if err != nil {
		return nil, err
	}
	tx.hook = opts.hook
	for _, q := range todo {
		tx.ops = append(tx.ops, txnOp{Name: q.Name, Restore: q.ID})
		rec.Put(q.Record)
	}
	if err := tx.Commit(ctx, rec); err != nil {
		return nil, err
	}
	return todo, nil
}
