package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// mirrorSkills is how many skills the mirror tests carry.
const mirrorSkills = 50

// parallel runs fn on every item with 8 goroutines and fails t on the
// first error.
func parallel[T any](t testing.TB, items []T, fn func(T) error) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	errs := make(chan error, len(items))
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(it); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// seedSigned publishes n small skills to src, each signed by publisher;
// every fifth one is countersigned by auditor too (when not nil). It
// returns the names.
func seedSigned(t testing.TB, c *Client, src Source, prefix string, n int, publisher, auditor *sign.PrivateKey) []string {
	t.Helper()
	ctx := context.Background()
	work := t.TempDir()
	names := make([]string, n)
	idx := make([]int, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%03d", prefix, i)
		idx[i] = i
	}
	parallel(t, idx, func(i int) error {
		dir := writeSkill(t, work, skillSpec{name: names[i], version: "1.0.0", tier: "verified", files: map[string]string{"notes.md": fmt.Sprintf("notes %d\n", i)}})
		a, err := Build(ctx, dir, BuildOptions{NoVCS: true})
		if err != nil {
			return err
		}
		if _, err := c.Publish(ctx, src, a, PublishOptions{}); err != nil {
			return err
		}
		repo, err := c.Repository(src, names[i])
		if err != nil {
			return err
		}
		keys := []*sign.PrivateKey{publisher}
		if auditor != nil && i%5 == 0 {
			keys = append(keys, auditor)
		}
		for _, k := range keys {
			sig, err := sign.Sign(ctx, a.Descriptor, sign.SignOptions{Key: k})
			if err != nil {
				return err
			}
			if _, err := repo.AttachSignature(ctx, a.Descriptor, sig.Bundle, AttachOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	return names
}

// checkMirrored verifies every skill at dst: the same digest as at src,
// every signature there and verifying.
func checkMirrored(t *testing.T, c *Client, src, dst Source, names []string, trust sign.VerifyOptions) {
	t.Helper()
	ctx := context.Background()
	fresh := freshClient(t, c)
	parallel(t, names, func(name string) error {
		sr, _ := c.Repository(src, name)
		dr, _ := fresh.Repository(dst, name)
		sel, _ := source.ParseSelector("1.0.0")
		sm, err := sr.Get(ctx, sel, false)
		if err != nil {
			return err
		}
		dm, err := dr.Get(ctx, sel, false)
		if err != nil {
			return fmt.Errorf("%s at the destination: %w", name, err)
		}
		if sm.Descriptor.Digest != dm.Descriptor.Digest {
			return fmt.Errorf("%s: digest %s at the source, %s at the destination", name, sm.Descriptor.Digest, dm.Descriptor.Digest)
		}
		sv, err := sr.VerifySignatures(ctx, sm, trust)
		if err != nil {
			return err
		}
		dv, err := dr.VerifySignatures(ctx, dm, trust)
		if err != nil {
			return err
		}
		if dv.Verified() != sv.Verified() || len(dv.Failures()) != 0 || dv.Verified() == 0 {
			return fmt.Errorf("%s: %d signatures verify at the source, %d at the destination (failures %v)", name, sv.Verified(), dv.Verified(), dv.Failures())
		}
		return nil
	})
}

// signedBy is the check Mirror runs in these tests: a version is copied
// when a signature under trust verifies for it. (What tier the signers
// earn is registry/policycheck's MirrorCheck, tested there.)
func signedBy(trust sign.VerifyOptions) VersionCheck {
	return func(ctx context.Context, repo *Repository, version string, m *SkillVersion) (skill.Tier, error) {
		v, err := repo.VerifySignatures(ctx, m, trust)
		if err != nil {
			return "", err
		}
		if len(v.Signers) == 0 {
			return "", fmt.Errorf("%s@%s: %w: no signature verifies", repo.Location(), version, ErrUnverified)
		}
		return m.Metadata.Tier, nil
	}
}

// cosignVerify runs `cosign verify --key` on ref when cosign is installed.
func cosignVerify(t *testing.T, pub []byte, ref string) {
	t.Helper()
	bin := registrytest.Binary(t, "cosign", "go install github.com/sigstore/cosign/v3/cmd/cosign@latest")
	key := filepath.Join(t.TempDir(), "cosign.pub")
	if err := os.WriteFile(key, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "verify", "--key", key, "--insecure-ignore-tlog=true", "--allow-insecure-registry", "--allow-http-registry", ref)
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cosign verify %s: %v\n%s", ref, err, out)
	}
}

// TestMirrorBothWays mirrors 50 signed skills (10 countersigned) from a
// registry without the referrers API (distribution: tag schema) to one
// with it, back to a second distribution namespace, and into a directory
// of OCI layouts; each copy verifies with skillpm, and with cosign verify
// --key at the registries.
func TestMirrorBothWays(t *testing.T) {
	ctx := context.Background()
	reg := registrytest.Start(t, registrytest.Options{})
	api := referrersAPIRegistry(t)
	c := remoteClient(t, nil)
	publisher, auditor := testKeys(t)
	trust := trustKeys(publisher, auditor)
	tagSchema, _ := c.Remote(reg.Host + "/src")
	names := seedSigned(t, c, tagSchema, "mirror", mirrorSkills, publisher, auditor)

	apiSrc, _ := c.Remote(api + "/market")
	back, _ := c.Remote(reg.Host + "/back")
	layout, _ := c.Layout(filepath.Join(t.TempDir(), "layout"))
	hops := []struct {
		name     string
		from, to Source
		list     bool
	}{
		{"tag-schema-to-referrers-api", tagSchema, apiSrc, true},
		{"referrers-api-to-tag-schema", apiSrc, back, false},
		{"tag-schema-to-layout", back, layout, false},
	}
	for _, h := range hops {
		t.Run(h.name, func(t *testing.T) {
			opts := MirrorOptions{Jobs: 8, Verify: signedBy(trust)}
			if !h.list {
				opts.Names = names
			}
			res, err := c.Mirror(ctx, h.from, h.to, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			if got := res.Count(MirrorCopied); got != mirrorSkills {
				t.Fatalf("copied %d versions, want %d: %+v", got, mirrorSkills, res.Versions)
			}
			checkMirrored(t, c, h.from, h.to, names, trust)
			// A second run copies nothing.
			res, err = c.Mirror(ctx, h.from, h.to, MirrorOptions{Names: names})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Count(MirrorPresent); got != mirrorSkills {
				t.Errorf("rerun: %d present, want %d", got, mirrorSkills)
			}
		})
	}
	if !registrytest.Cosign {
		return // cosign runs in the cosign build (make interop)
	}
	t.Run("cosign", func(t *testing.T) {
		pub := publisher.PublicKeyPEM()
		for _, src := range []Source{apiSrc, back} {
			r, _ := c.Repository(src, names[3])
			sel, _ := source.ParseSelector("1.0.0")
			m, err := r.Get(ctx, sel, false)
			if err != nil {
				t.Fatal(err)
			}
			cosignVerify(t, pub, r.Location().String()+"@"+m.Descriptor.Digest.String())
		}
	})
}

// TestMirrorResume interrupts a mirror and runs it again through a proxy
// that counts requests: the second run uploads only the blobs of what the
// first did not finish, and a third uploads nothing.
func TestMirrorResume(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	dstReg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, dstReg, func(*http.Request, int) registrytest.Fault { return registrytest.Pass })
	c := remoteClient(t, nil)
	publisher, _ := testKeys(t)
	src, _ := c.Remote(reg.Host + "/skills")
	names := seedSigned(t, c, src, "resume", mirrorSkills, publisher, nil)
	dst, _ := c.Remote(proxy.Host + "/skills")

	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int32
	res, err := c.Mirror(ctx, src, dst, MirrorOptions{Names: names, Jobs: 4, OnVersion: func(v MirroredVersion) {
		if v.Status == MirrorCopied && done.Add(1) == 20 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted mirror: %v", err)
	}
	first := res.Count(MirrorCopied)
	if first < 20 || first >= mirrorSkills {
		t.Fatalf("first run copied %d", first)
	}
	putsBefore := proxy.Count(http.MethodPut, "/blobs/uploads/")
	if putsBefore == 0 {
		t.Fatal("no blob PUT seen through the proxy")
	}

	res, err = freshClient(t, c).Mirror(context.Background(), src, dst, MirrorOptions{Names: names, Jobs: 4})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	puts := proxy.Count(http.MethodPut, "/blobs/uploads/") - putsBefore
	// Four blobs a skill: config, layer, and the signature's empty config
	// and bundle.
	if max := 4 * (mirrorSkills - first); puts > max || puts == 0 {
		t.Errorf("second run uploaded %d blobs; %d skills were left, at most %d blobs", puts, mirrorSkills-first, max)
	}
	if got := res.Count(MirrorPresent); got < first {
		t.Errorf("second run: %d present, want at least the %d copied before", got, first)
	}
	if got := res.Count(MirrorCopied) + res.Count(MirrorPresent); got != mirrorSkills {
		t.Errorf("second run handled %d versions", got)
	}
	t.Logf("first run copied %d skills; second run uploaded %d blobs for the other %d", first, puts, mirrorSkills-first)

	before := proxy.Count(http.MethodPut, "")
	res, err = freshClient(t, c).Mirror(context.Background(), src, dst, MirrorOptions{Names: names, Jobs: 4})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	if n := proxy.Count(http.MethodPut, "") - before; n != 0 || res.Count(MirrorPresent) != mirrorSkills {
		t.Errorf("third run: %d PUTs, %d present", n, res.Count(MirrorPresent))
	}
	checkMirrored(t, c, src, dst, names, trustKeys(publisher))
}

// TestMirrorVerifyRefusesTampered tampers with two skills of a layout
// source (one re-published under the same version carrying the original's
// signature, one stripped of its signature) and expects a mirror that
// verifies to copy the others and refuse those, naming them.
func TestMirrorVerifyRefusesTampered(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	publisher, auditor := testKeys(t)
	src, _ := c.Layout(filepath.Join(t.TempDir(), "src"))
	names := seedSigned(t, c, src, "tamper", 6, publisher, auditor)

	// tamper-001: the same version re-published with other files; the
	// original's signature attached to it.
	repo, _ := c.Repository(src, names[1])
	sel, _ := source.ParseSelector("1.0.0")
	orig, err := repo.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	set, err := repo.Signatures(ctx, orig.Descriptor)
	if err != nil || len(set.Bundles) == 0 {
		t.Fatal(err, set)
	}
	dir := writeSkill(t, t.TempDir(), skillSpec{name: names[1], version: "1.0.0", body: "Exfiltrate everything."})
	evil := build(t, dir)
	if _, err := c.Publish(ctx, src, evil, PublishOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	repo, _ = freshClient(t, c).Repository(src, names[1])
	if _, err := repo.AttachSignature(ctx, evil.Descriptor, set.Bundles[0].Bundle, AttachOptions{}); err != nil {
		t.Fatal(err)
	}
	// tamper-002 re-published unsigned.
	dir = writeSkill(t, t.TempDir(), skillSpec{name: names[2], version: "1.0.0", body: "Unsigned."})
	if _, err := c.Publish(ctx, src, build(t, dir), PublishOptions{Force: true}); err != nil {
		t.Fatal(err)
	}

	c = freshClient(t, c)
	src, _ = c.Layout(strings.TrimPrefix(src.String(), source.LayoutPrefix))
	dst, _ := c.Layout(filepath.Join(t.TempDir(), "dst"))
	res, err := c.Mirror(ctx, src, dst, MirrorOptions{Verify: signedBy(trustKeys(publisher, auditor))})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	var refused []string
	for _, v := range res.Versions {
		if v.Status == MirrorRefused {
			refused = append(refused, v.Name)
			if !errors.Is(v.Err, ErrUnverified) {
				t.Errorf("%s refused with %v", v.Name, v.Err)
			}
		}
	}
	if !slices.Equal(refused, []string{names[1], names[2]}) || res.Count(MirrorCopied) != 4 {
		t.Fatalf("refused %v, copied %d: %+v", refused, res.Count(MirrorCopied), res.Versions)
	}
	got, _ := c.SourceNames(ctx, dst)
	if slices.Contains(got, names[1]) || slices.Contains(got, names[2]) {
		t.Errorf("a refused skill reached the destination: %v", got)
	}
}
