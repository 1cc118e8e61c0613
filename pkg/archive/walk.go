package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	ignore "github.com/sabhiram/go-gitignore"
)

// IgnoreFile is the name of the ignore file read at the root of a skill
// directory. It uses gitignore syntax; it is itself packed unless it
// matches one of its own patterns.
const IgnoreFile = ".skillignore"

// GitIgnoreFile is the git ignore file, honoured at the root of a skill
// directory and below it (each for its own subtree): what git would not
// commit is not packed either.
const GitIgnoreFile = ".gitignore"

// maxIgnoreFileBytes keeps a runaway .skillignore from being read whole.
const maxIgnoreFileBytes = 1 << 20

// isVCS reports the version-control folders that are never packed. ".git"
// may also be a file (worktrees, submodules).
func isVCS(name string) bool {
	switch name {
	case ".git", ".hg", ".svn":
		return true
	}
	return false
}

// srcEntry is one path of a source tree, in the order it is packed.
type srcEntry struct {
	rel  string // slash-separated, relative to the tree root
	dir  bool
	exec bool
	size int64
	info fs.FileInfo // from Lstat, to detect a file swapped while reading
}

// tarName is the entry's name in the archive.
func (e srcEntry) tarName() string {
	if e.dir {
		return e.rel + "/"
	}
	return e.rel
}

// walkRules selects between the packing view of a tree and the installed
// view (everything, so that hand edits cannot hide behind .skillignore).
type walkRules int

const (
	packRules walkRules = iota
	installedRules
)

// collect lists a tree in packing order: sorted in byte order by entry
// name, a directory's with a trailing slash. Under
// packRules it drops VCS folders, ignored paths and directories left with no
// file, and checks every path against lim as Unpack would.
func collect(ctx context.Context, dir string, rules walkRules, lim Limits) ([]srcEntry, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("archive: %s is not a directory", dir)
	}
	var igns []*ignore.GitIgnore
	nested := map[string]*ignore.GitIgnore{}
	if rules == packRules {
		for _, name := range []string{IgnoreFile, GitIgnoreFile} {
			ign, err := readIgnore(dir, name)
			if err != nil {
				return nil, err
			}
			if ign != nil {
				igns = append(igns, ign)
			}
		}
	}

	var entries []srcEntry
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		rel = filepath.ToSlash(rel)
		if rules == packRules {
			skip := isVCS(d.Name())
			m := rel
			if d.IsDir() {
				m += "/" // lets "name/" patterns match directories only
			}
			for _, ign := range igns {
				skip = skip || ign.MatchesPath(m)
			}
			// A .gitignore below the root applies to its own subtree, with
			// paths relative to its directory, as in git.
			for up := path.Dir(rel); !skip && up != "."; up = path.Dir(up) {
				if ign := nested[up]; ign != nil {
					skip = ign.MatchesPath(strings.TrimPrefix(m, up+"/"))
				}
			}
			if skip {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				ign, err := readIgnore(p, GitIgnoreFile)
				if err != nil {
					return err
				}
				if ign != nil {
					nested[rel] = ign
				}
			}
			if len(entries) >= 4*lim.MaxEntries {
				// Only a memory guard against a huge tree: empty directories
				// are dropped later, and the tracker applies the real bound.
				return entryErr(rel, ErrLimit, "more than %d paths in the tree", 4*lim.MaxEntries)
			}
		}
		switch t := d.Type(); {
		case t.IsDir():
			entries = append(entries, srcEntry{rel: rel, dir: true})
		case t.IsRegular():
			if rules == packRules {
				if kind := secretFile(p, rel, d.Name()); kind != "" {
					return entryErr(rel, ErrSecretFile, "%s, which a published skill would give away; add %q to %s (or .gitignore) to leave it out", kind, rel, IgnoreFile)
				}
			}
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("archive: %w", err)
			}
			entries = append(entries, srcEntry{rel: rel, exec: info.Mode().Perm()&0o111 != 0, size: info.Size(), info: info})
		case t&fs.ModeSymlink != 0:
			return entryErr(rel, ErrLinkEntry, "symbolic link")
		default:
			return entryErr(rel, ErrSpecialFile, "file type %v", t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	if rules == packRules {
		entries = dropEmptyDirs(entries)
	}
	// Sorted by entry name as written in the tar, directories with their
	// trailing slash: a directory then precedes its contents and each
	// subtree is contiguous. WalkDir's per-directory order differs ("a/x"
	// before "a-b", where bytes put '-' before '/').
	slices.SortFunc(entries, func(a, b srcEntry) int { return strings.Compare(a.tarName(), b.tarName()) })

	if rules == packRules {
		tr := newTracker(lim)
		for _, e := range entries {
			if _, _, err := tr.add(e.rel, e.rel, e.dir, e.size); err != nil {
				return nil, err
			}
		}
	}
	return entries, nil
}

// dropEmptyDirs keeps only directories that contain a kept file, as git
// does, so a tree packs the same whether or not it came from a git clone.
func dropEmptyDirs(entries []srcEntry) []srcEntry {
	needed := make(map[string]bool)
	for _, e := range entries {
		if e.dir {
			continue
		}
		for p := e.rel; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if needed[p] {
				break
			}
			needed[p] = true
		}
	}
	return slices.DeleteFunc(entries, func(e srcEntry) bool { return e.dir && !needed[e.rel] })
}

func readIgnore(dir, name string) (*ignore.GitIgnore, error) {
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.Mode().IsRegular() {
		// The walk reports a link or special file; a directory of that name
		// simply holds no rules.
		return nil, nil
	}
	if fi.Size() > maxIgnoreFileBytes {
		return nil, entryErr(name, ErrLimit, "larger than %d bytes", maxIgnoreFileBytes)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileBytes))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return ignore.CompileIgnoreLines(strings.Split(string(b), "\n")...), nil
}

// openChecked opens a collected file and makes sure it is still the regular
// file of the walk, so a swap for a symlink or FIFO is caught, not followed.
func openChecked(dir string, e srcEntry) (*os.File, error) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.rel)))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, e.info) || fi.Size() != e.size {
		f.Close()
		return nil, entryErr(e.rel, ErrChanged, "")
	}
	return f, nil
}

// copyExact copies exactly e.size bytes of f to w and fails if the file
// turns out shorter or longer, so a header never lies about its data.
func copyExact(ctx context.Context, w io.Writer, f *os.File, e srcEntry, buf []byte) error {
	n, err := io.CopyBuffer(w, io.LimitReader(ctxReader{ctx, f}, e.size), buf)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", e.rel, err)
	}
	if n != e.size {
		return entryErr(e.rel, ErrChanged, "shrank to %d bytes", n)
	}
	var one [1]byte
	if m, _ := f.Read(one[:]); m != 0 {
		return entryErr(e.rel, ErrChanged, "grew past %d bytes", e.size)
	}
	return nil
}

// ctxReader makes long copies stop soon after ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// envFile reports environment files, which hold secrets: .env and .env.*
// (and .envrc), except the templates projects commit on purpose.
func envFile(name string) bool {
	if !strings.HasPrefix(name, ".env") {
		return false
	}
	switch name {
	case ".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults":
		return false
	}
	return name == ".env" || name == ".envrc" || strings.HasPrefix(name, ".env.")
}

// credentialName says what a file that holds credentials by its name
// alone is, "" for any other name.
func credentialName(name string) string {
	switch name {
	case ".npmrc":
		return "an npm configuration (registry tokens)"
	case ".pypirc":
		return "a PyPI configuration (upload tokens)"
	case ".netrc", "_netrc":
		return "a netrc file (passwords)"
	case ".git-credentials":
		return "git's stored credentials"
	case ".pgpass":
		return "a PostgreSQL password file"
	case "credentials.json":
		return "a credentials file"
	case "application_default_credentials.json":
		return "Google Cloud credentials"
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk":
		return "an SSH private key"
	case ".bash_history", ".zsh_history", ".sh_history", ".history", "fish_history":
		return "a shell history"
	case ".python_history":
		return "a Python history"
	case ".psql_history":
		return "a psql history"
	case ".mysql_history":
		return "a MySQL history"
	case ".node_repl_history":
		return "a Node.js history"
	}
	return ""
}

// credentialPath says what a cloud tool's credential file, known by its
// folder and name, is; "" for any other path.
func credentialPath(rel string) string {
	for _, c := range [][2]string{
		{".aws/credentials", "AWS credentials"},
		{".aws/config", "an AWS configuration"},
		{".docker/config.json", "a Docker configuration (registry tokens)"},
		{".kube/config", "a Kubernetes configuration (cluster credentials)"},
		{".azure/accessTokens.json", "Azure credentials"},
		{".config/gcloud/credentials.db", "Google Cloud credentials"},
		{".config/gh/hosts.yml", "GitHub CLI credentials"},
	} {
		if rel == c[0] || strings.HasSuffix(rel, "/"+c[0]) {
			return c[1]
		}
	}
	return ""
}

// maxKeySniff is how much of a .pem or .key file is read to find a
// private key block: a key comes first or after a short certificate chain.
const maxKeySniff = 64 << 10

// secretFile says what a file to be packed is when it usually holds
// secrets ("" when not): environment files, credential and history files
// by name or by folder, and .pem or .key files holding a private key
// (public certificates are packed). p is its path on disk, rel its path
// in the skill, name its base name.
func secretFile(p, rel, name string) string {
	if envFile(name) {
		return "an environment file"
	}
	if kind := credentialName(name); kind != "" {
		return kind
	}
	if kind := credentialPath(rel); kind != "" {
		return kind
	}
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".p12", ".pfx":
		return "a PKCS #12 key store"
	case ".pem", ".key":
		f, err := os.Open(p)
		if err != nil {
			return "" // the read that packs it reports the error
		}
		defer f.Close()
		head, _ := io.ReadAll(io.LimitReader(f, maxKeySniff))
		if bytes.Contains(head, []byte("PRIVATE KEY-----")) {
			return "a private key"
		}
	}
	return ""
}

// packWarnings finds packed paths that rarely belong in a skill: installed
// dependencies, bytecode caches, virtual environments and Finder metadata.
// A directory is reported once, not each file in it.
func packWarnings(entries []srcEntry) []PackWarning {
	var out []PackWarning
	reported := ""
	for _, e := range entries {
		if reported != "" && strings.HasPrefix(e.rel, reported+"/") {
			continue
		}
		name := e.rel[strings.LastIndexByte(e.rel, '/')+1:]
		why := ""
		switch {
		case e.dir && name == "node_modules":
			why = "installed npm dependencies"
		case e.dir && name == "__pycache__":
			why = "Python bytecode cache"
		case e.dir && (name == ".venv" || name == "venv"):
			why = "a Python virtual environment"
		case !e.dir && name == ".DS_Store":
			why = "macOS Finder metadata"
		default:
			continue
		}
		if e.dir {
			reported = e.rel
		}
		out = append(out, PackWarning{Path: e.tarName(), Message: fmt.Sprintf("%s is packed (%s), which rarely belongs in a skill; add it to %s to leave it out", e.tarName(), why, IgnoreFile)})
	}
	return out
}
