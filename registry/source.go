package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gofrs/flock"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/source"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
)

// ReadStorage is one skill repository, read-only, as oras-go sees it.
type ReadStorage interface {
	oras.ReadOnlyTarget
	orasregistry.TagLister
}

// Storage is one skill repository open for publishing.
type Storage interface {
	oras.Target
	orasregistry.TagLister
}

// Location names a repository in messages and errors.
type Location struct {
	// Registry is the registry host, or "oci-layout:DIR" for a directory
	// of layouts.
	Registry string
	// Repository is the repository path within the registry (for a layout
	// source, the skill name).
	Repository string
}

// String returns the repository reference: "ghcr.io/acme/skills/x" or
// "oci-layout:DIR/x".
func (l Location) String() string { return l.Registry + "/" + l.Repository }

// Source holds skill repositories, one per skill name: a remote registry
// namespace or a directory of OCI layouts. Implementations are safe for
// concurrent use.
type Source interface {
	// String returns the source as ParseSource reads it back.
	String() string
	// Locate returns where the repository of name is.
	Locate(name string) Location
	// OpenRead opens the repository of name for reading. A repository that
	// does not exist is ErrNotFound, now or on first use.
	OpenRead(ctx context.Context, name string) (ReadStorage, error)
	// OpenWrite opens the repository of name for publishing, creating it
	// if needed. release must be called when done: a layout holds a file
	// lock until then, so concurrent publishers do not lose each other's
	// tags.
	OpenWrite(ctx context.Context, name string) (s Storage, release func(), err error)
}

// Names lists the skills a source holds, where the source can say:
// directories of layouts can, registries answer with ErrNotFound until
// mirroring adds _catalog support.
type Names interface {
	Names(ctx context.Context) ([]string, error)
}

// Remote returns the source for a registry namespace such as
// "ghcr.io/acme/skills" or "127.0.0.1:5000". Plain HTTP follows
// Options.PlainHTTP and PlainHTTPRegistries.
func (c *Client) Remote(spec string) (Source, error) {
	ss, err := source.Parse(spec)
	if err != nil {
		return nil, err
	}
	if ss.Kind != source.KindRemote {
		return nil, fmt.Errorf("%w: %q is not a registry (host/namespace)", ErrInvalidRef, spec)
	}
	host := ss.Registry()
	plain, err := c.plainHTTP(host)
	if err != nil {
		return nil, err
	}
	return &remoteSource{c: c, spec: ss.Location, host: host, namespace: strings.TrimPrefix(strings.TrimPrefix(ss.Location, host), "/"), plain: plain}, nil
}

// Layout returns the source for a directory holding one OCI image layout
// per skill (DIR/<name>/), as oras-go's content/oci store reads and writes
// them.
func (c *Client) Layout(dir string) (Source, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidRef, dir, err)
	}
	return &layoutSource{c: c, dir: abs}, nil
}

// Embedded returns the embedded default registry: a directory of layouts
// under Options.EmbeddedDir.
func (c *Client) Embedded() Source {
	return &layoutSource{c: c, dir: c.opts.EmbeddedDir}
}

// OpenSource returns the source a source.Spec names.
func (c *Client) OpenSource(s source.Spec) (Source, error) {
	switch s.Kind {
	case source.KindEmbedded:
		return c.Embedded(), nil
	case source.KindRemote:
		return c.Remote(s.Location)
	case source.KindLayout:
		return c.Layout(s.Location)
	}
	return nil, fmt.Errorf("%w: a %s is not a source", ErrInvalidRef, s.Kind)
}

// SourceFor returns the source of a reference: def for a bare name, the
// registry, layout directory or embedded registry it names otherwise. def
// nil means the embedded registry. A directory or a git reference has no
// source here: it is not a published skill.
func (c *Client) SourceFor(ref source.Ref, def Source) (Source, error) {
	if ref.Kind == source.RefName {
		if def == nil {
			def = c.Embedded()
		}
		return def, nil
	}
	if spec, ok := ref.Spec(); ok {
		return c.OpenSource(spec)
	}
	if ref.Kind == source.RefGit {
		return nil, fmt.Errorf("%w: %s is a git reference, not a published skill", ErrInvalidRef, ref.Source)
	}
	return nil, fmt.Errorf("%w: %s is a local directory, not a published skill", ErrInvalidRef, ref.Source)
}

type remoteSource struct {
	c         *Client
	spec      string
	host      string
	namespace string
	plain     bool
}

func (s *remoteSource) String() string { return s.spec }

func (s *remoteSource) Locate(name string) Location {
	p := name
	if s.namespace != "" {
		p = s.namespace + "/" + name
	}
	return Location{Registry: s.host, Repository: p}
}

func (s *remoteSource) repo(name string) (*remote.Repository, error) {
	if !skill.ValidName(name) {
		return nil, fmt.Errorf("%w: %q is not a skill name", ErrInvalidRef, name)
	}
	loc := s.Locate(name)
	r, err := remote.NewRepository(loc.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidRef, loc, err)
	}
	r.Client = s.c.http
	r.PlainHTTP = s.plain
	r.MaxMetadataBytes = s.c.opts.Limits.MaxManifestBytes
	if has, known := s.c.referrersAPI(s.host); known {
		// A new repository: the capability cannot have been set yet.
		_ = r.SetReferrersCapability(has)
	}
	return r, nil
}

func (s *remoteSource) OpenRead(_ context.Context, name string) (ReadStorage, error) {
	return s.repo(name)
}

func (s *remoteSource) OpenWrite(_ context.Context, name string) (Storage, func(), error) {
	r, err := s.repo(name)
	if err != nil {
		return nil, nil, err
	}
	return r, func() {}, nil
}

type layoutSource struct {
	c   *Client
	dir string
}

func (s *layoutSource) String() string { return source.LayoutPrefix + s.dir }

func (s *layoutSource) Locate(name string) Location {
	return Location{Registry: source.LayoutPrefix + s.dir, Repository: name}
}

func (s *layoutSource) path(name string) (string, error) {
	// A valid skill name has no separator or dot: it cannot leave dir.
	if !skill.ValidName(name) {
		return "", fmt.Errorf("%w: %q is not a skill name", ErrInvalidRef, name)
	}
	return filepath.Join(s.dir, name), nil
}

func (s *layoutSource) lock(name string) *flock.Flock {
	return flock.New(filepath.Join(s.dir, ".locks", name+".lock"))
}

func (s *layoutSource) OpenRead(ctx context.Context, name string) (ReadStorage, error) {
	p, err := s.path(name)
	if err != nil {
		return nil, err
	}
	if st := s.c.cachedLayout(p); st != nil {
		return st, nil
	}
	if _, err := os.Stat(filepath.Join(p, ocispec.ImageLayoutFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such skill: %w", s.Locate(name), ErrNotFound)
		}
		return nil, &RequestError{Op: "open", Registry: s.Locate(name).Registry, Repository: name, Err: err}
	}
	// A shared lock: a publisher rewrites index.json in place.
	lk := s.lock(name)
	if err := os.MkdirAll(filepath.Dir(lk.Path()), 0o755); err == nil {
		if ok, err := lk.TryRLockContext(ctx, lockRetry); err == nil && ok {
			defer lk.Unlock()
		}
	}
	st, err := oci.NewFromFS(ctx, os.DirFS(p))
	if err != nil {
		return nil, &RequestError{Op: "open", Registry: s.Locate(name).Registry, Repository: name, Err: err}
	}
	s.c.keepLayout(p, st)
	return st, nil
}

func (s *layoutSource) OpenWrite(ctx context.Context, name string) (Storage, func(), error) {
	p, err := s.path(name)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (Storage, func(), error) {
		return nil, nil, &RequestError{Op: "publish", Registry: s.Locate(name).Registry, Repository: name, Err: err}
	}
	lk := s.lock(name)
	if err := os.MkdirAll(filepath.Dir(lk.Path()), 0o755); err != nil {
		return fail(err)
	}
	if _, err := lk.TryLockContext(ctx, lockRetry); err != nil {
		return fail(fmt.Errorf("locking %s: %w", lk.Path(), err))
	}
	st, err := oci.NewWithContext(ctx, p)
	if err != nil {
		lk.Unlock()
		return fail(err)
	}
	release := func() {
		s.c.dropLayout(p)
		lk.Unlock()
	}
	return st, release, nil
}

// Names lists the skills in the directory: the subdirectories holding an
// OCI layout, sorted.
func (s *layoutSource) Names(ctx context.Context) ([]string, error) {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var names []string
	for _, d := range des {
		if !d.IsDir() || !skill.ValidName(d.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.dir, d.Name(), ocispec.ImageLayoutFile)); err == nil {
			names = append(names, d.Name())
		}
	}
	sort.Strings(names)
	return names, ctx.Err()
}

func (c *Client) cachedLayout(path string) ReadStorage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.layouts[path]
}

func (c *Client) keepLayout(path string, st ReadStorage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.layouts[path] = st
}

func (c *Client) dropLayout(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.layouts, path)
}
