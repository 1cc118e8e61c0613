package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/source"
)

// Pull mirrors (Options.Mirrors) serve copies of a registry's content, as
// containerd's hosts.toml mirrors with the "pull" capability and Docker's
// registry-mirrors do. They are asked only for content named by its
// digest (a layer, a config, a manifest or signature named by digest),
// whose bytes are verified as they land; which digest a version or a tag
// stands for, and which signatures a manifest has, is always asked of
// the registry itself, so a mirror can fail or be stale but cannot make
// skillpm install anything the registry did not publish.

// MirrorsError is a fetch that failed at the registry after every mirror
// configured for it had failed first.
type MirrorsError struct {
	// Err is the registry's own failure.
	Err error
	// Mirrors are the mirrors' failures, in the order they were tried.
	Mirrors []error
}

// Error names the registry's failure, then each mirror's.
func (e *MirrorsError) Error() string {
	parts := make([]string, len(e.Mirrors))
	for i, m := range e.Mirrors {
		parts[i] = m.Error()
	}
	return fmt.Sprintf("%v (the mirrors tried first failed too: %s)", e.Err, strings.Join(parts, "; "))
}

// Class is the registry's failure's class: the mirrors were a second
// chance, not the operation.
func (e *MirrorsError) Class() errdef.Class { return errdef.ClassOf(e.Err) }

// Unwrap returns the registry's failure first, so that the error's class
// is the registry's, then the mirrors'.
func (e *MirrorsError) Unwrap() []error { return append([]error{e.Err}, e.Mirrors...) }

// validateMirrors checks Options.Mirrors: keys are registry hosts, values
// registry locations ("host[:port][/prefix]").
func validateMirrors(m map[string][]string) error {
	for host, list := range m {
		if host == "" || strings.ContainsAny(host, "/ ") {
			return fmt.Errorf("%w: Mirrors: %q is not a registry host (host or host:port)", ErrInvalidOptions, host)
		}
		for _, spec := range list {
			ss, err := source.Parse(spec)
			if err != nil || ss.Kind != source.KindRemote {
				return fmt.Errorf("%w: Mirrors: %s: %q is not a registry (host[:port][/prefix])", ErrInvalidOptions, host, spec)
			}
			if strings.EqualFold(ss.Registry(), host) {
				return fmt.Errorf("%w: Mirrors: %s is listed as its own mirror", ErrInvalidOptions, host)
			}
		}
	}
	return nil
}

// mirrors returns the repositories that mirror r, in the order they are
// configured: for a repository ns/x of the registry, prefix/ns/x of each
// mirror. An offline client, a layout and a mirror itself have none.
func (r *Repository) mirrors() []*Repository {
	if r.c.opts.Offline {
		return nil
	}
	if _, ok := r.src.(*remoteSource); !ok {
		return nil
	}
	var list []string
	for host, l := range r.c.opts.Mirrors {
		if strings.EqualFold(host, r.loc.Registry) {
			list = l
			break
		}
	}
	ns, _ := strings.CutSuffix(r.loc.Repository, r.name)
	ns = strings.TrimSuffix(ns, "/")
	var out []*Repository
	for _, spec := range list {
		loc := strings.TrimSuffix(spec, "/")
		if ns != "" {
			loc += "/" + ns
		}
		src, err := r.c.Remote(loc)
		if err != nil {
			// Plain HTTP refused for a mirror that is not loopback: the
			// mirror is unusable, the registry is not.
			r.c.log().LogAttrs(context.Background(), slog.LevelWarn, "mirror skipped",
				slog.String("registry", r.loc.Registry), slog.String("mirror", spec), slog.String("cause", err.Error()))
			continue
		}
		out = append(out, &Repository{c: r.c, src: src, name: r.name, loc: src.Locate(r.name)})
	}
	return out
}

// logMirror reports a mirror passed over: at Warn when it served other
// bytes than the digest names (it is broken or lying, and its operator
// should know), at Info otherwise (it lacks the content, or is down).
func (c *Client) logMirror(ctx context.Context, m *Repository, desc ocispec.Descriptor, kind string, err error) {
	level := slog.LevelInfo
	if errors.Is(err, ErrDigestMismatch) {
		level = slog.LevelWarn
	}
	c.log().LogAttrs(ctx, level, "mirror passed over",
		slog.String("mirror", m.loc.Registry), slog.String("repository", m.loc.Repository),
		slog.String(kind, desc.Digest.String()), slog.String("cause", err.Error()))
}
