package gitsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/gofrs/flock"
)

// Options configures a [Cache].
type Options struct {
	// Dir holds the fetched repositories, one bare shallow repository per
	// remote ("<cache dir>/git" in the CLI).
	Dir string
	// Offline answers from the cache only: a branch, tag or range
	// resolves to what was fetched last.
	Offline bool
	// Git is the git executable; "" looks "git" up on PATH.
	Git string
	// Env is added to git's environment.
	Env []string
	// MaxBlobBytes bounds the size of a file fetched: larger blobs stay
	// on the server (for servers that support partial fetches), and a
	// skill holding one is refused. 0 means DefaultMaxBlobBytes.
	MaxBlobBytes int64
}

// DefaultMaxBlobBytes is the default Options.MaxBlobBytes: far above any
// file of a real skill (instructions and scripts; the largest corpus
// skill has no file over 256 KiB), far below the repository's other
// content a fetch must not bring along (datasets, binaries, media).
const DefaultMaxBlobBytes = 32 << 20

// maxBlob is the blob size bound in force.
func (c *Cache) maxBlob() int64 {
	if c.opts.MaxBlobBytes > 0 {
		return c.opts.MaxBlobBytes
	}
	return DefaultMaxBlobBytes
}

// Cache fetches git references into shallow bare repositories under
// Options.Dir, by commit, and exports the skills they hold.
type Cache struct {
	opts Options
	git  string
}

// New returns a cache over opts.Dir. It checks nothing yet: a missing git
// is reported by the first reference that needs it, naming it.
func New(opts Options) *Cache {
	return &Cache{opts: opts}
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.opts.Dir }

// Resolved is a reference resolved to a commit.
type Resolved struct {
	// Ref is the reference resolved.
	Ref *Ref
	// Commit is the full commit id.
	Commit string
	// Tag is the tag chosen when Ref.Rev is a tag or a range, else "".
	Tag string
	// Version is the semver version the tag stands for ("1.2.0"), else "".
	Version string
	// Warning, when set, says the answer came from the cache because the
	// remote could not be reached.
	Warning string

	// commit is the commit object, once read (see commitObject): Export,
	// CommitSigner and CommitTime read it from one git process.
	commit string
}

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// IsCommit reports whether rev is a full commit id.
func IsCommit(rev string) bool { return fullCommit.MatchString(rev) }

func (c *Cache) lookGit() error {
	if c.git != "" {
		return nil
	}
	name := c.opts.Git
	if name == "" {
		name = "git"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%w: skillpm runs git to fetch git references; install it (https://git-scm.com/downloads) and put it on PATH", ErrNoGit)
	}
	c.git = p
	return nil
}

// repoPath is where the bare repository for r's remote lives.
func (c *Cache) repoPath(r *Ref) string {
	sum := sha256.Sum256([]byte(r.Remote()))
	return filepath.Join(c.opts.Dir, "repos", hex.EncodeToString(sum[:12])+".git")
}

// repoDir returns the bare repository for r's remote, creating it.
func (c *Cache) repoDir(ctx context.Context, r *Ref) (string, error) {
	dir, _, err := c.openRepo(ctx, r)
	return dir, err
}

// openRepo is repoDir, also saying whether the repository was created
// now (and so holds no commit yet).
func (c *Cache) openRepo(ctx context.Context, r *Ref) (dir string, created bool, err error) {
	if c.opts.Dir == "" {
		return "", false, errors.New("gitsource: no cache directory")
	}
	dir = c.repoPath(r)
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		return dir, false, nil
	}
	if c.opts.Offline {
		return "", false, fmt.Errorf("%w: %s was never fetched; run once with the network", ErrOffline, r.Remote())
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", false, err
	}
	if _, err := c.cmd("", nil, "init", "-q", "--bare", dir).output(ctx); err != nil {
		return "", false, err
	}
	// The remote's URL (credentials removed) says what the folder is, in
	// the file git keeps for a repository's description (written here,
	// not by one more git process on every cold fetch).
	if err := os.WriteFile(filepath.Join(dir, "description"), []byte(r.Remote()+"\n"), 0o644); err != nil {
		return "", false, err
	}
	return dir, true, nil
}

// Resolve finds the commit r names, fetching it shallowly into the cache
// when it is not there. A full commit id is answered from the cache
// without the network when it was fetched before.
func (c *Cache) Resolve(ctx context.Context, r *Ref) (*Resolved, error) {
	res, err := c.resolve(ctx, r)
	if err != nil {
		return nil, &Error{Ref: r.String(), Err: err}
	}
	return res, nil
}

func (c *Cache) resolve(ctx context.Context, r *Ref) (*Resolved, error) {
	if err := c.lookGit(); err != nil {
		return nil, err
	}
	// One process at a time fetches into a repository: git's own ref
	// locks would make a second one fail rather than wait.
	if c.opts.Dir != "" && !c.opts.Offline {
		if err := os.MkdirAll(filepath.Join(c.opts.Dir, "repos"), 0o755); err != nil {
			return nil, err
		}
		lk := flock.New(strings.TrimSuffix(c.repoPath(r), ".git") + ".lock")
		if _, err := lk.TryLockContext(ctx, 50*time.Millisecond); err != nil {
			return nil, fmt.Errorf("locking the git cache: %w", err)
		}
		defer lk.Unlock()
	}
	dir, created, err := c.openRepo(ctx, r)
	if err != nil {
		return nil, err
	}
	res := &Resolved{Ref: r}
	if IsCommit(r.Rev) {
		res.Commit = r.Rev
		return res, c.fetch(ctx, dir, r, res.Commit, "", created)
	}
	// A repository this command created holds nothing yet: the default
	// branch is fetched by name, asking the remote once (listing its refs
	// first is a connection of its own). Any failure falls back to the
	// listing, whose messages say what is wrong.
	if r.Rev == "" && created {
		if commit, err := c.fetchHead(ctx, dir, r); err == nil {
			res.Commit = commit
			return res, nil
		}
	}
	var refs map[string]string
	if c.opts.Offline {
		refs, err = c.cachedRefs(ctx, dir)
	} else if refs, err = c.remoteRefs(ctx, r); err != nil {
		cached, cerr := c.cachedRefs(ctx, dir)
		if cerr != nil || len(cached) == 0 {
			return nil, err
		}
		res.Warning = fmt.Sprintf("%v; using what the cache has", err)
		refs, err = cached, nil
	}
	if err != nil {
		return nil, err
	}
	name, err := pick(r, refs, res)
	if err != nil {
		return nil, err
	}
	return res, c.fetch(ctx, dir, r, res.Commit, name, created)
}

// remoteRefs lists the remote's branches and tags (annotated tags peeled).
func (c *Cache) remoteRefs(ctx context.Context, r *Ref) (map[string]string, error) {
	out, err := c.cmd("", r, "-c", "protocol.version=2", "ls-remote", "--symref", "--", r.fetchURL()).output(ctx)
	if err != nil {
		return nil, fetchErr(err)
	}
	return parseRefs(out, ""), nil
}

// cachedRefs lists what earlier fetches recorded under refs/skillpm/.
func (c *Cache) cachedRefs(ctx context.Context, dir string) (map[string]string, error) {
	out, err := c.cmd(dir, nil, "for-each-ref", "--format=%(objectname)\t%(refname)", "refs/skillpm/").output(ctx)
	if err != nil {
		return nil, err
	}
	return parseRefs(out, "refs/skillpm/"), nil
}

// parseRefs reads "<oid>\t<ref>" lines into ref -> commit, preferring a
// tag's peeled commit; prefix is removed from ref names.
func parseRefs(out, prefix string) map[string]string {
	refs := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		oid, name, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "ref:") || !fullCommit.MatchString(oid) {
			continue
		}
		name = strings.TrimPrefix(name, prefix)
		if peeled, ok := strings.CutSuffix(name, "^{}"); ok {
			refs[peeled] = oid
			continue
		}
		if _, seen := refs[name]; !seen || !strings.HasPrefix(name, "refs/tags/") {
			refs[name] = oid
		}
	}
	return refs
}

// pick chooses the ref r.Rev names among refs, setting res.Commit (and
// Tag and Version), and returns the ref's full name.
func pick(r *Ref, refs map[string]string, res *Resolved) (string, error) {
	rev := r.Rev
	if rev == "" {
		rev = "HEAD"
	}
	for _, name := range []string{rev, "refs/heads/" + rev, "refs/tags/" + rev} {
		if oid, ok := refs[name]; ok && (name == "HEAD" || strings.HasPrefix(name, "refs/")) {
			res.Commit = oid
			if t, ok := strings.CutPrefix(name, "refs/tags/"); ok {
				res.Tag = t
				_, res.Version = tagVersion(t, skillName(r))
			}
			return name, nil
		}
	}
	con, err := semver.NewConstraint(rev)
	if err != nil {
		return "", fmt.Errorf("%w: no branch or tag %q%s", ErrRevNotFound, rev, listRefs(refs))
	}
	var best *semver.Version
	var bestTag string
	tags := versionTags(refs, skillName(r))
	for t, v := range tags {
		if con.Check(v) && (best == nil || v.GreaterThan(best) || v.Equal(best) && t < bestTag) {
			best, bestTag = v, t
		}
	}
	if best == nil {
		have := make([]string, 0, len(tags))
		for t := range tags {
			have = append(have, t)
		}
		sort.Strings(have)
		if len(have) == 0 {
			return "", fmt.Errorf("%w: no version tag (v1.2.0 or %s-v1.2.0) matches %s: the repository has none", ErrRevNotFound, skillName(r), rev)
		}
		return "", fmt.Errorf("%w: no version tag matches %s (tags: %s)", ErrRevNotFound, rev, strings.Join(have, ", "))
	}
	res.Commit, res.Tag, res.Version = refs["refs/tags/"+bestTag], bestTag, best.String()
	return "refs/tags/" + bestTag, nil
}

// skillName is the name NAME-v1.2.0 tags are looked for under: the last
// folder of the reference, else the repository's name.
func skillName(r *Ref) string {
	if r.Subdir != "" {
		return path.Base(r.Subdir)
	}
	return strings.TrimSuffix(path.Base(r.Path), ".git")
}

// tagVersion reads a version tag: "v1.2.0", "1.2.0", "NAME-v1.2.0";
// scoped reports a NAME- tag.
func tagVersion(tag, name string) (scoped bool, version string) {
	t := tag
	if rest, ok := strings.CutPrefix(tag, name+"-"); ok {
		t, scoped = rest, true
	}
	v, err := semver.StrictNewVersion(strings.TrimPrefix(t, "v"))
	if err != nil {
		return false, ""
	}
	return scoped, v.String()
}

// versionTags returns the tags that are versions of name: its NAME-v
// tags when it has any, else the plain v1.2.0 tags.
func versionTags(refs map[string]string, name string) map[string]*semver.Version {
	scoped, plain := map[string]*semver.Version{}, map[string]*semver.Version{}
	for ref := range refs {
		t, ok := strings.CutPrefix(ref, "refs/tags/")
		if !ok {
			continue
		}
		s, v := tagVersion(t, name)
		if v == "" {
			continue
		}
		sv := semver.MustParse(v)
		if s {
			scoped[t] = sv
		} else if !strings.Contains(t, "-v") {
			plain[t] = sv
		}
	}
	if len(scoped) > 0 {
		return scoped
	}
	return plain
}

func listRefs(refs map[string]string) string {
	var names []string
	for n := range refs {
		if s, ok := strings.CutPrefix(n, "refs/heads/"); ok {
			names = append(names, s)
		} else if s, ok := strings.CutPrefix(n, "refs/tags/"); ok {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return " (has " + strings.Join(names, ", ") + ")"
}

// fetchRemote names the remote a fetch is made through; its URL is given
// on git's command line only.
const fetchRemote = "skillpm-fetch"

// fetch makes sure commit is in the cache repository, fetching it alone
// and shallowly, and records it under refs/skillpm/ (with refName, the
// ref it was resolved from) so that offline resolution and pruning know it.
// A repository created by this command (fresh) is not asked whether it
// has the commit: it has none.
func (c *Cache) fetch(ctx context.Context, dir string, r *Ref, commit, refName string, fresh bool) error {
	have := !fresh
	if have {
		_, err := c.cmd(dir, nil, "cat-file", "-e", commit+"^{commit}").output(ctx)
		have = err == nil
	}
	if !have {
		if c.opts.Offline {
			return fmt.Errorf("%w: commit %s was never fetched; run once with the network", ErrOffline, commit)
		}
		if err := c.fetchShallow(ctx, dir, r, commit); err != nil {
			var ge *gitError
			if errors.As(err, &ge) && (strings.Contains(ge.msg, "not our ref") || strings.Contains(ge.msg, "unadvertised object") || strings.Contains(ge.msg, "couldn't find remote ref")) {
				return fmt.Errorf("%w: commit %s is not in the repository", ErrRevNotFound, commit)
			}
			return fetchErr(err)
		}
	}
	return c.recordRefs(ctx, dir, commit, refName)
}

// fetchHead fetches the remote's default branch (HEAD) shallowly into
// refs/skillpm/HEAD and returns its commit, recorded as fetch records it.
func (c *Cache) fetchHead(ctx context.Context, dir string, r *Ref) (string, error) {
	if err := c.fetchShallow(ctx, dir, r, "+HEAD:refs/skillpm/HEAD"); err != nil {
		return "", err
	}
	out, err := c.cmd(dir, nil, "rev-parse", "--verify", "-q", "refs/skillpm/HEAD^{commit}").output(ctx)
	commit := strings.TrimSpace(out)
	if err != nil || !IsCommit(commit) {
		return "", fmt.Errorf("git rev-parse: unexpected %q (%v)", commit, err)
	}
	return commit, c.recordRefs(ctx, dir, commit, "HEAD")
}

// fetchShallow fetches what (a commit id or a refspec) at depth 1.
func (c *Cache) fetchShallow(ctx context.Context, dir string, r *Ref, what string) error {
	// Blobs over a skill file's size limit stay on the server (a
	// partial fetch, which servers that do not support it ignore):
	// the export refuses a skill holding one, and one elsewhere in
	// the repository never lands in the cache. The URL, with any
	// credentials, is given on the command line as a remote that is
	// the objects' promisor for this fetch only: declared a promisor
	// on the command line too, it is never written to the
	// repository's configuration (as git does for a remote it makes
	// a promisor itself), so nothing is ever fetched lazily later.
	limit := fmt.Sprintf("blob:limit=%d", c.maxBlob()+1)
	// No automatic maintenance after the fetch: the cache is pruned
	// by skillpm (cache prune), and a gc or maintenance run started
	// by a fetch is one more process on every cold install.
	_, err := c.cmd(dir, r, "-c", "remote."+fetchRemote+".url="+r.fetchURL(),
		"-c", "remote."+fetchRemote+".promisor=true", "-c", "remote."+fetchRemote+".partialclonefilter="+limit,
		"-c", "protocol.version=2", "-c", "maintenance.auto=false", "-c", "gc.auto=0",
		"fetch", "-q", "--depth=1", "--filter="+limit, "--no-tags", "--no-write-fetch-head", "--", fetchRemote, what).output(ctx)
	return err
}

// recordRefs records commit under refs/skillpm/commits/ and, with
// refName, under refs/skillpm/REFNAME.
func (c *Cache) recordRefs(ctx context.Context, dir, commit, refName string) error {
	// Both refs in one git process (and one ref transaction). -z: fields
	// end in NUL, so a ref name the remote advertised cannot add fields
	// or commands (git still checks each name's format).
	update := func(ref string) string { return "update " + ref + "\x00" + commit + "\x00\x00" }
	refs := update("refs/skillpm/commits/" + commit)
	if refName != "" {
		refs += update("refs/skillpm/" + refName)
	}
	return c.cmd(dir, nil, "update-ref", "-z", "--stdin").exec(ctx, strings.NewReader(refs), io.Discard)
}
