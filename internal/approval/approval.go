// Package approval remembers which project trust policies the user has
// approved on this machine, and exactly which bytes of each.
//
// A project's skills.yaml can name a trust policy file the project ships.
// Obeying it unread would let any cloned repository raise its own
// publisher to verified, so a project policy counts only while its
// digest (every byte its load read: tiers.Policy.Digest) is the one the
// user approved for that path, the way direnv and mise treat a project's
// .envrc and mise.toml. The records live in the user's state directory,
// outside every project, one small file per policy path, so approving
// one policy never rewrites another's record and two processes never
// share a file.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/userdir"
)

// maxRecordBytes bounds a record read: a path and a digest.
const maxRecordBytes = 64 << 10

// Store is a directory of approval records. The zero value has no
// directory: nothing is approved and Approve fails.
type Store struct {
	// Dir holds the records.
	Dir string
}

// Default is the user's store: approved-policies under skillpm's
// directory in the state home (userdir.StateHome), read through getenv.
func Default(getenv func(string) string) Store {
	if d := userdir.StateHome(runtime.GOOS, getenv); d != "" {
		return Store{Dir: filepath.Join(d, "skillpm", "approved-policies")}
	}
	return Store{}
}

// Record is one approval: the policy file (absolute) and the digest of
// what the user approved in it.
type Record struct {
	Path     string    `json:"path"`
	Digest   string    `json:"digest"`
	Approved time.Time `json:"approved"`
}

// Canonical is the key a policy path is recorded under: absolute, with
// symbolic links in its directory resolved, so that two spellings of one
// file share a record.
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return abs, nil
}

func (s Store) file(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:])+".json")
}

// Lookup returns the record for path, and false when there is none. A
// record that cannot be read or parsed, or that names another path, is
// no approval: it is reported as absent, never trusted.
func (s Store) Lookup(path string) (Record, bool) {
	if s.Dir == "" {
		return Record{}, false
	}
	canonical, err := Canonical(path)
	if err != nil {
		return Record{}, false
	}
	data, err := boundedfile.ReadRegular(s.file(canonical), maxRecordBytes)
	if err != nil {
		return Record{}, false
	}
	var r Record
	if json.Unmarshal(data, &r) != nil || r.Path != canonical || r.Digest == "" {
		return Record{}, false
	}
	return r, true
}

// Approved reports whether path's recorded approval is of digest.
func (s Store) Approved(path, digest string) bool {
	r, ok := s.Lookup(path)
	return ok && digest != "" && r.Digest == digest
}

// Approve records that the user approved digest for path, replacing an
// earlier approval of the same path.
func (s Store) Approve(path, digest string, now time.Time) error {
	if s.Dir == "" {
		return errors.New("no state directory to keep policy approvals in: set XDG_STATE_HOME or HOME")
	}
	if digest == "" {
		return fmt.Errorf("approving %s: the policy has no digest", path)
	}
	canonical, err := Canonical(path)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(Record{Path: canonical, Digest: digest, Approved: now.UTC()}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("recording the approval of %s: %w", path, err)
	}
	return atomicfile.Write(s.file(canonical), append(data, '\n'), 0o600)
}

// Revoke removes path's approval; it reports whether there was one.
func (s Store) Revoke(path string) (bool, error) {
	if s.Dir == "" {
		return false, nil
	}
	canonical, err := Canonical(path)
	if err != nil {
		return false, err
	}
	err = os.Remove(s.file(canonical))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
