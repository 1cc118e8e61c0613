package gitsource

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Ref is a parsed git reference. Its String form never holds a
// credential: a password or token given in the URL is kept only to fetch.
type Ref struct {
	// Scheme is "https", "http", "ssh" or "file".
	Scheme string
	// User is the SSH user ("git"); HTTP users are credentials and are
	// never kept here.
	User string
	// Hostname is the forge's "hostname[:port]"; "" for file.
	Hostname string
	// Path is the repository path on the host ("/owner/repo"), or the
	// absolute directory for file.
	Path string
	// Rev is the revision asked for: a branch, a tag, a full commit or a
	// semver range over version tags; "" means the remote's HEAD.
	Rev string
	// Subdir is the folder inside the repository, slash-separated and
	// clean, "" for the whole repository.
	Subdir string
	// Note, when set, says how a form that is not a git reference (a bare
	// https://github.com URL) was read.
	Note string

	secret *url.Userinfo
}

// shorthands are the hosts OWNER/REPO shorthands expand to.
var shorthands = map[string]string{"github": "github.com", "gitlab": "gitlab.com", "codeberg": "codeberg.org"}

// Parse reads a git reference (see the package documentation).
func Parse(s string) (*Ref, error) {
	r, err := parse(s)
	if err != nil {
		return nil, &Error{Ref: redactInput(s), Err: err}
	}
	return r, nil
}

func parse(s string) (*Ref, error) {
	switch {
	case strings.HasPrefix(s, "git+"):
		return parseURL(strings.TrimPrefix(s, "git+"), "")
	case strings.HasPrefix(s, "https://"), strings.HasPrefix(s, "http://"):
		return parseBare(s)
	}
	p, rest, ok := strings.Cut(s, ":")
	host, known := shorthands[p]
	if !ok || !known {
		return nil, fmt.Errorf("%w: %q has no known git layout; write git+https://HOST/OWNER/REPO", ErrUnknownForge, p)
	}
	return parseShorthand(host, rest)
}

// parseURL reads URL[@REV][#SUBDIR] after "git+".
func parseURL(s, note string) (*Ref, error) {
	s, frag, _ := strings.Cut(s, "#")
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRef, stripErr(err))
	}
	r := &Ref{Scheme: u.Scheme, Note: note}
	switch u.Scheme {
	case "https", "http", "ssh":
		if u.Host == "" {
			return nil, fmt.Errorf("%w: no host; write git+%s://HOST/OWNER/REPO", ErrInvalidRef, u.Scheme)
		}
		r.Hostname = u.Host
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("%w: git+file takes an absolute path: git+file:///path/to/repo", ErrInvalidRef)
		}
	default:
		return nil, fmt.Errorf("%w: scheme %q; use git+https, git+ssh or git+file", ErrInvalidRef, u.Scheme)
	}
	if u.User != nil {
		if _, hasPassword := u.User.Password(); u.Scheme == "ssh" && !hasPassword {
			r.User = u.User.Username()
		} else if u.Scheme != "file" {
			r.secret = u.User
		}
	}
	if u.RawQuery != "" {
		return nil, fmt.Errorf("%w: a query (?%s) is not part of a git reference", ErrInvalidRef, u.RawQuery)
	}
	p := u.Path
	if i := strings.LastIndex(p, "@"); i >= 0 {
		p, r.Rev = p[:i], p[i+1:]
		if err := checkRev(r.Rev); err != nil {
			return nil, err
		}
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "/" {
		return nil, fmt.Errorf("%w: no repository path", ErrInvalidRef)
	}
	if path.Clean(p) != p {
		return nil, fmt.Errorf("%w: repository path %q is not clean", ErrInvalidRef, p)
	}
	r.Path = p
	frag = strings.TrimPrefix(frag, "subdirectory=")
	if r.Subdir, err = cleanSubdir(frag); err != nil {
		return nil, err
	}
	return r, nil
}

// parseShorthand reads OWNER/REPO[/SUBDIR][@REV].
func parseShorthand(host, s string) (*Ref, error) {
	r := &Ref{Scheme: "https", Hostname: host}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		s, r.Rev = s[:i], s[i+1:]
		if err := checkRev(r.Rev); err != nil {
			return nil, err
		}
	}
	parts := strings.SplitN(s, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" || strings.Contains(s, "#") {
		return nil, fmt.Errorf("%w: write OWNER/REPO[/SUBDIR][@REV] after the host name", ErrInvalidRef)
	}
	r.Path = "/" + parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
	if len(parts) == 3 {
		var err error
		if r.Subdir, err = cleanSubdir(parts[2]); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// parseBare reads a web URL of a known forge: https://github.com/O/R,
// .../tree/REV[/SUBDIR].
func parseBare(s string) (*Ref, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidRef, stripErr(err))
	}
	known := false
	for _, h := range shorthands {
		known = known || u.Host == h
	}
	if !known {
		return nil, fmt.Errorf("%w: %s is not a forge skillpm knows; for a git repository write git+%s", ErrUnknownForge, u.Host, redactURL(u))
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return nil, fmt.Errorf("%w: write https://%s/OWNER/REPO", ErrInvalidRef, u.Host)
	}
	r := &Ref{Scheme: "https", Hostname: u.Host, Path: "/" + parts[0] + "/" + strings.TrimSuffix(parts[1], ".git"), secret: u.User}
	if rest := parts[2:]; len(rest) > 0 {
		if rest[0] == "-" { // gitlab: /-/tree/REV
			rest = rest[1:]
		}
		if len(rest) < 2 || rest[0] != "tree" {
			return nil, fmt.Errorf("%w: write https://%s/OWNER/REPO[/tree/REV/SUBDIR]", ErrInvalidRef, u.Host)
		}
		r.Rev = rest[1]
		if err := checkRev(r.Rev); err != nil {
			return nil, err
		}
		if r.Subdir, err = cleanSubdir(strings.Join(rest[2:], "/")); err != nil {
			return nil, err
		}
	}
	r.Note = "read " + redactURL(u) + " as " + r.String()
	return r, nil
}

// checkRev refuses a revision that cannot be written back into a
// reference: empty, or holding "#" or a control character.
func checkRev(rev string) error {
	if rev == "" {
		return fmt.Errorf("%w: empty revision after @", ErrInvalidRef)
	}
	if strings.ContainsFunc(rev, func(r rune) bool { return r == '#' || r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: revision %q holds # or a control character", ErrInvalidRef, rev)
	}
	return nil
}

func cleanSubdir(s string) (string, error) {
	s = strings.Trim(s, "/")
	if s == "" {
		return "", nil
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") || strings.Contains(s, "\\") {
		return "", fmt.Errorf("%w: folder %q leaves the repository", ErrInvalidRef, s)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

// Remote is the repository's URL without credentials: the identity the
// cache, the lock and the trust policy use.
func (r *Ref) Remote() string {
	u := url.URL{Scheme: r.Scheme, Host: r.Hostname, Path: r.Path}
	if r.User != "" {
		u.User = url.User(r.User)
	}
	return u.String()
}

// TrustRepository is the canonical repository string the trust policy's
// scopes match for skills built from this repository: "git:HOST/PATH"
// for https, http and ssh alike (the host and path name the repository;
// the protocol does not), and "git:file:PATH" for a local one, without
// credentials, revision, folder or ".git" suffix, the host in lower case.
// A commit's SSH signature earns a tier only where a scope covers this
// string, so an old signed commit replayed from another host or path is
// judged as that repository's.
func (r *Ref) TrustRepository() string {
	p := strings.TrimSuffix(strings.TrimSuffix(r.Path, "/"), ".git")
	if r.Scheme == "file" {
		return "git:file:" + p
	}
	return "git:" + strings.ToLower(r.Hostname) + p
}

// fetchURL is the URL git is given, with credentials when there were any.
func (r *Ref) fetchURL() string {
	u := url.URL{Scheme: r.Scheme, Host: r.Hostname, Path: r.Path, User: r.secret}
	if r.secret == nil && r.User != "" {
		u.User = url.User(r.User)
	}
	return u.String()
}

// Repo is the repository as a reference: "git+" + Remote.
func (r *Ref) Repo() string { return "git+" + r.Remote() }

// String writes the reference canonically, without credentials:
// git+URL[@REV][#SUBDIR].
func (r *Ref) String() string {
	s := r.Repo()
	if r.Rev != "" {
		s += "@" + r.Rev
	}
	if r.Subdir != "" {
		s += "#" + r.Subdir
	}
	return s
}

// At returns a copy of r at revision rev.
func (r *Ref) At(rev string) *Ref {
	c := *r
	c.Rev = rev
	return &c
}

// In returns a copy of r for the folder subdir of the repository.
func (r *Ref) In(subdir string) *Ref {
	c := *r
	c.Subdir = subdir
	return &c
}

// redactURL writes u without its user information.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// redactInput removes anything between "://" and "@" that holds a ":"
// from s, for messages about input that did not parse.
func redactInput(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return s[:i+3] + "REDACTED@" + rest[at+1:]
	}
	return s
}

// stripErr drops the URL a url.Error quotes, which may hold credentials.
func stripErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// StripCredentials removes a password or token from a git remote as git
// config writes it: URL form ("https://user:token@host/x" becomes
// "https://host/x") and scp form ("user:token@host:x" becomes "host:x").
// An SSH user without a secret ("git@host:x", "ssh://git@host/x") is kept.
func StripCredentials(remote string) string {
	if i := strings.Index(remote, "://"); i >= 0 {
		u, err := url.Parse(remote)
		if err != nil {
			return redactInput(remote)
		}
		if u.User == nil {
			return remote
		}
		if _, pw := u.User.Password(); u.Scheme == "ssh" && !pw {
			return remote
		}
		return redactURL(u)
	}
	at := strings.LastIndex(remote, "@")
	colon := strings.Index(remote, ":")
	if at < 0 || colon < 0 {
		return remote
	}
	if colon < at { // user:token@host:path
		return remote[at+1:]
	}
	return remote
}
