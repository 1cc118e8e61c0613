package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/pkg/audit/internal/treesitter"
)

// sources are this package's Go files: the rules, the analyses and the
// thresholds, all of which decide the findings. Their digest is the rules'
// version in a cache key, so that a skillpm whose audit changed in any way
// never takes a report an older one wrote, without anyone remembering to
// bump a number.
//
//go:embed *.go
var sources embed.FS

// cacheFormat is the layout of a cache entry; a change makes old entries
// foreign.
const cacheFormat = "skillpm-audit-cache/1"

// RulesDigest returns the version of the audit as a cache key uses it: the
// SHA-256 of this package's sources and of the tree-sitter module.
func RulesDigest() string {
	h := sha256.New()
	names, _ := fs.Glob(sources, "*.go")
	sort.Strings(names)
	for _, n := range names {
		b, _ := sources.ReadFile(n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "treesitter %s\n", treesitter.ModuleSHA256())
	return hex.EncodeToString(h.Sum(nil))
}

// cacheEntry is one cached report, as written to disk.
type cacheEntry struct {
	// Key is the entry's key (see Scanner.cacheKey); an entry under
	// another key's name is foreign.
	Key string `json:"key"`
	// Digest is the report's canonical digest, so that an entry changed
	// after it was written is noticed.
	Digest string  `json:"digest"`
	Report *Report `json:"report"`
}

// treeListing is what a cache key says of a skill directory: every path
// the audit would see, with the SHA-256 of each regular file.
type treeListing struct {
	digest string
	// sums maps the path of each regular file to its SHA-256.
	sums map[string]string
}

// listTree walks dir as Scan does (VCS folders and .git files left out)
// and hashes every regular file. ok is false when something could not be
// read: such a skill is audited without the cache, since its report
// depends on more than its bytes.
func listTree(ctx context.Context, dir string) (treeListing, bool) {
	var lines []string
	l := treeListing{sums: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".hg", ".svn":
				if rel != "." {
					return fs.SkipDir
				}
			}
			return nil
		}
		if d.Name() == ".git" {
			return nil
		}
		if !d.Type().IsRegular() {
			lines = append(lines, "other "+rel)
			return nil
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		l.sums[rel] = sum
		lines = append(lines, sum+" "+rel)
		return nil
	})
	if err != nil {
		return l, false
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, line := range lines {
		// Paths may hold any byte but NUL, so NUL ends each line.
		h.Write([]byte(line))
		h.Write([]byte{0})
	}
	l.digest = hex.EncodeToString(h.Sum(nil))
	return l, true
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cacheKey is the key of a report on tree: the skill's bytes, the audit's
// version, and everything in Options that changes the report.
func (s *Scanner) cacheKey(tree treeListing) string {
	b, _ := json.Marshal(struct {
		Format string `json:"format"`
		Rules  string `json:"rules"`
		Tool   string `json:"tool"`
		Limits Limits `json:"limits"`
		Tree   string `json:"tree"`
	}{cacheFormat, s.rulesDigest, s.opts.Tool, s.opts.Limits, tree.digest})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (s *Scanner) cachePath(key string) string {
	return filepath.Join(s.opts.CacheDir, key[:2], key+".json")
}

// matchesTree says whether rep speaks of exactly the files of tree, with
// their SHA-256: what binds a report to the bytes on disk, whatever its
// key says.
func matchesTree(rep *Report, tree treeListing) bool {
	seen := 0
	for _, f := range rep.Files {
		sum, ok := tree.sums[f.Path]
		if f.Kind == "skipped" {
			continue
		}
		if !ok || f.SHA256 != sum {
			return false
		}
		seen++
	}
	// Every file is in the report unless a limit stopped the walk.
	return seen == len(tree.sums) || hasUnreadable(rep)
}

func hasUnreadable(rep *Report) bool {
	for _, f := range rep.Findings {
		if f.Unreadable {
			return true
		}
	}
	return false
}

// loadCached returns the report cached under key for tree, or nil when
// there is none or the entry is not one this Scanner would have written
// for these bytes (damaged, foreign, of another audit version): such an
// entry is ignored, and the next store replaces it.
func (s *Scanner) loadCached(key string, tree treeListing) *Report {
	b, err := os.ReadFile(s.cachePath(key))
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e cacheEntry
	if dec.Decode(&e) != nil || e.Key != key || e.Report == nil {
		return nil
	}
	rep := e.Report
	if rep.Schema != ReportSchema || rep.Tool != s.opts.Tool || rep.Files == nil || rep.Findings == nil || rep.Permissions == nil {
		return nil
	}
	for _, f := range rep.Findings {
		if _, ok := s.rules[f.Rule]; !ok {
			return nil
		}
	}
	if d, err := rep.Digest(); err != nil || d != e.Digest {
		return nil
	}
	if !matchesTree(rep, tree) {
		return nil
	}
	return rep
}

// storeCached writes rep under key. A report that does not match tree
// (the directory changed while it was audited) is not stored. Failures are
// ignored: the cache only saves work.
func (s *Scanner) storeCached(key string, tree treeListing, rep *Report) {
	if !matchesTree(rep, tree) {
		return
	}
	d, err := rep.Digest()
	if err != nil {
		return
	}
	b, err := json.Marshal(cacheEntry{Key: key, Digest: d, Report: rep})
	if err != nil {
		return
	}
	p := s.cachePath(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	// A temporary file renamed into place, so that a concurrent reader
	// sees a whole entry or none. Not synced: an entry a crash damages
	// fails its digest and is rebuilt.
	f, err := os.CreateTemp(filepath.Dir(p), "."+key[:8]+".*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
	}
}

// scanCached is Scan through the cache in Options.CacheDir.
func (s *Scanner) scanCached(ctx context.Context, dir string, scan func() (*Report, error)) (*Report, error) {
	tree, ok := listTree(ctx, dir)
	if !ok {
		return scan()
	}
	key := s.cacheKey(tree)
	if rep := s.loadCached(key, tree); rep != nil {
		return rep, nil
	}
	rep, err := scan()
	if err != nil {
		return nil, err
	}
	s.storeCached(key, tree, rep)
	return rep, nil
}
