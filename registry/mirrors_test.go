package registry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/source"
)

// TestMirrorFallback pulls through two real registries holding the same
// skill: a mirror, tried first, whose blob answers a fault mangles, and
// the registry itself. A mirror's wrong bytes are refused, named by
// digest, and the pull is retried from the next copy: the skill lands
// intact. Only content named by digest is asked of a mirror: the tag and
// the manifest come from the registry.
func TestMirrorFallback(t *testing.T) {
	origin := registrytest.Start(t, registrytest.Options{InMemory: true})
	mirror := registrytest.Start(t, registrytest.Options{InMemory: true})
	c := remoteClient(t, nil)
	dir := writeSkill(t, t.TempDir(), skillSpec{name: "solo", version: "1.0.0", files: map[string]string{"data.txt": randomText(8 << 10)}})
	a := build(t, dir)
	for _, host := range []string{origin.Host, mirror.Host} {
		if _, err := c.Publish(context.Background(), remoteSourceFor(t, c, host), a, PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	layer := a.Manifest.Layers[0].Digest.String()

	// pull reads solo@1.0.0 from originHost with the mirrors given, and
	// returns the log, the unpacked SKILL.md and the error.
	pull := func(t *testing.T, originHost string, mirrors ...string) (string, []byte, error) {
		// The client logs from its own goroutines (the wait notice's
		// timer) while the test reads the log.
		var log registrytest.SyncBuffer
		// The default timeouts: no fault here stalls, and a mirror is
		// asked once, so a short stall bound would pass over a slow but
		// working mirror on a loaded machine.
		c := remoteClient(t, func(o *Options) {
			o.Mirrors = map[string][]string{originHost: mirrors}
			o.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))
		})
		repo, _ := c.Repository(remoteSourceFor(t, c, originHost), "solo")
		sel, _ := source.ParseSelector("1.0.0")
		m, err := repo.Get(context.Background(), sel, false)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if _, err := repo.Pull(context.Background(), m, out, PullOptions{}); err != nil {
			return log.String(), nil, err
		}
		data, err := os.ReadFile(filepath.Join(out, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		return log.String(), data, nil
	}
	mangled := func(f registrytest.Fault) registrytest.Rule {
		return func(r *http.Request, n int) registrytest.Fault {
			if strings.Contains(r.URL.Path, "/blobs/") {
				return f
			}
			return registrytest.Pass
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}

	for _, f := range []registrytest.Fault{registrytest.Corrupt, registrytest.Truncate, registrytest.Pad, registrytest.WrongLength, registrytest.ResetMidBody, registrytest.Status503} {
		t.Run("mirror "+f.String(), func(t *testing.T) {
			t.Parallel()
			bad := registrytest.NewProxy(t, mirror, mangled(f))
			good := registrytest.NewProxy(t, origin, nil)
			log, got, err := pull(t, good.Host, bad.Host)
			if err != nil {
				t.Fatalf("the registry holds the intact blob: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Error("the SKILL.md that landed is not the published one")
			}
			// A mirror is asked once, with no retry or resume: bytes that
			// are not the blob's, or a body cut short, pass it over at
			// once, and the registry serves the blob once.
			level := "WARN"
			if f == registrytest.Truncate || f == registrytest.ResetMidBody || f == registrytest.Status503 {
				level = "INFO"
			}
			if n := bad.Count(http.MethodGet, "/blobs/"+layer); n != 1 {
				t.Errorf("%d downloads of the layer from the mirror, want 1", n)
			}
			if n := good.Count(http.MethodGet, "/blobs/"); n != 1 {
				t.Errorf("%d downloads from the registry, want 1", n)
			}
			if n := bad.Count(http.MethodGet, "/manifests/") + bad.Count(http.MethodGet, "/tags/"); n != 0 {
				t.Errorf("%d tag or manifest requests to the mirror, want 0", n)
			}
			if !strings.Contains(log, "level="+level+" msg=\"mirror passed over\" mirror="+bad.Host) || !strings.Contains(log, layer) {
				t.Errorf("log %q does not warn of the mirror naming the digest %s", log, layer)
			}
		})
	}

	t.Run("mirror first", func(t *testing.T) {
		t.Parallel()
		m := registrytest.NewProxy(t, mirror, nil)
		o := registrytest.NewProxy(t, origin, nil)
		if _, _, err := pull(t, o.Host, m.Host); err != nil {
			t.Fatal(err)
		}
		if n, k := m.Count(http.MethodGet, "/blobs/"), o.Count(http.MethodGet, "/blobs/"); n != 1 || k != 0 {
			t.Errorf("%d blob downloads from the mirror and %d from the registry, want 1 and 0", n, k)
		}
	})

	t.Run("mirror down", func(t *testing.T) {
		t.Parallel()
		o := registrytest.NewProxy(t, origin, nil)
		log, _, err := pull(t, o.Host, registrytest.ClosedPort(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log, "level=INFO msg=\"mirror passed over\"") {
			t.Errorf("log %q does not say the mirror was passed over", log)
		}
	})

	t.Run("every copy wrong", func(t *testing.T) {
		t.Parallel()
		bad := registrytest.NewProxy(t, mirror, mangled(registrytest.Corrupt))
		worse := registrytest.NewProxy(t, origin, mangled(registrytest.Corrupt))
		_, _, err := pull(t, worse.Host, bad.Host)
		var me *MirrorsError
		var dm *DigestMismatchError
		if !errors.As(err, &me) || !errors.As(err, &dm) || !errors.Is(err, ErrDigestMismatch) {
			t.Fatalf("err = %v, want a *MirrorsError of digest mismatches", err)
		}
		if dm.Registry != worse.Host {
			t.Errorf("the error's first cause is %s's, want the registry's (%s)", dm.Registry, worse.Host)
		}
		msg := err.Error()
		if strings.Count(msg, layer) != 2 || !strings.Contains(msg, bad.Host) || !strings.Contains(msg, worse.Host) || strings.Contains(msg, "\n") {
			t.Errorf("message %q is not one line naming both copies and the digest %s", msg, layer)
		}
	})
}

// TestMirrorsValidate: a mirror that is not a registry, or a registry
// listed as its own mirror, is refused by New.
func TestMirrorsValidate(t *testing.T) {
	for _, m := range []map[string][]string{
		{"ghcr.io/acme": {"mirror.example"}},
		{"ghcr.io": {"oci-layout:dir"}},
		{"ghcr.io": {"GHCR.io/cache"}},
	} {
		if _, err := New(Options{Mirrors: m, CacheDir: t.TempDir(), EmbeddedDir: t.TempDir()}); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Mirrors %v: err = %v, want ErrInvalidOptions", m, err)
		}
	}
}
