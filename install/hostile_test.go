package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/registry/policycheck"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"oras.land/oras-go/v2/registry/remote"
)

// hostilePolicy trusts the publisher key at community, with a community
// ceiling that holds shell:execute (dangerous: it needs consent) and not
// desktop:control. The same key signs sparse indexes, named for them by
// a rule of its own.
const hostilePolicy = `version: 1
policies:
  - name: publishers
    scopes: ["*"]
    tier: community
    identities:
      - key: publisher.pub
  - name: index-signers
    scopes: ["**/skillpm-index"]
    tier: community
    identities:
      - key: publisher.pub
ceilings:
  community: [filesystem:read, network:read, shell:execute]
`

// hostileEnv is a real distribution registry, a publisher key the policy
// trusts at community, and a client with an empty cache.
type hostileEnv struct {
	t      *testing.T
	reg    *registrytest.Registry
	key    *sign.KeyPair
	policy *tiers.Policy
	trust  sign.VerifyOptions
	client *registry.Client
	work   string
}

func newHostileEnv(t *testing.T) *hostileEnv {
	t.Helper()
	e := &hostileEnv{t: t, reg: registrytest.Start(t, registrytest.Options{}), work: t.TempDir()}
	kp, err := sign.GenerateKey(sign.ECDSAP256, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.key = kp
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "publisher.pub"), kp.PublicPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(hostilePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if e.policy, err = tiers.Load(ctx, path); err != nil {
		t.Fatal(err)
	}
	if e.trust, err = policycheck.PolicyTrust(ctx, e.policy, policycheck.TrustOptions{NoPublicGood: true}); err != nil {
		t.Fatal(err)
	}
	if e.client, err = registry.New(registry.Options{PlainHTTP: true, CacheDir: filepath.Join(e.work, "cache"), EmbeddedDir: filepath.Join(e.work, "embedded")}); err != nil {
		t.Fatal(err)
	}
	return e
}

// skillMD is a community SKILL.md with the given permissions.
func skillMD(name, version string, perms ...string) string {
	var b strings.Builder
	b.WriteString("---\nname: " + name + "\ndescription: Skill " + name + " for trust tests. Use in tests.\nversion: " + version + "\n")
	b.WriteString("metadata:\n  gaia:\n    security_tier: community\n")
	if len(perms) > 0 {
		b.WriteString("    permissions:\n")
		for _, p := range perms {
			b.WriteString("      - " + p + "\n")
		}
	}
	return b.String() + "---\n# " + name + "\n\nBody.\n"
}

// build builds an honest artifact of the files given.
func (e *hostileEnv) build(label, name string, files map[string]string) *registry.Artifact {
	e.t.Helper()
	dir := filepath.Join(e.work, "src", label, name)
	if err := writeFiles(dir, files); err != nil {
		e.t.Fatal(err)
	}
	a, err := registry.Build(context.Background(), dir, registry.BuildOptions{NoVCS: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// pushCrafted pushes, by hand with oras-go, a manifest made of layer's
// layer, the config bytes cfg and annotations ann, tagged version in
// repository att/<name>, and signs it with the publisher key. It is what a
// hostile publisher can put in a registry without skillpm.
func (e *hostileEnv) pushCrafted(name, version string, layer *registry.Artifact, cfg []byte, ann map[string]string) ocispec.Descriptor {
	e.t.Helper()
	ctx := context.Background()
	repo, err := remote.NewRepository(e.reg.Host + "/att/" + name)
	if err != nil {
		e.t.Fatal(err)
	}
	repo.PlainHTTP = true
	m := layer.Manifest
	m.Config = ocispec.Descriptor{MediaType: registry.ConfigMediaType, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))}
	m.Annotations = ann
	mb, err := json.Marshal(m)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, blob := range []struct {
		d    ocispec.Descriptor
		data []byte
	}{{m.Config, cfg}, {m.Layers[0], layer.Layer}} {
		if err := repo.Push(ctx, blob.d, bytes.NewReader(blob.data)); err != nil {
			e.t.Fatal(err)
		}
	}
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: registry.ArtifactType, Digest: digest.FromBytes(mb), Size: int64(len(mb))}
	if err := repo.PushReference(ctx, desc, bytes.NewReader(mb), registry.Tag(version)); err != nil {
		e.t.Fatal(err)
	}
	src, err := e.client.Remote(e.reg.Host + "/att")
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := e.client.Repository(src, name)
	if err != nil {
		e.t.Fatal(err)
	}
	sig, err := sign.Sign(ctx, desc, sign.SignOptions{Key: e.key.Key})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := r.AttachSignature(ctx, desc, sig.Bundle, registry.AttachOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return desc
}

// install installs name from att/ into a fresh root with no grant, no
// --yes and no terminal.
func (e *hostileEnv) install(name string, mod func(*Options)) (string, *Result, error) {
	e.t.Helper()
	g, err := catalog.New(e.client, resolve.Namespace{Default: e.reg.Host + "/att"})
	if err != nil {
		e.t.Fatal(err)
	}
	root := filepath.Join(e.work, "roots", name)
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, Policy: e.policy, Trust: e.trust}
	if mod != nil {
		mod(&opts)
	}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: name, Range: resolve.AnyRange}}}
	res, err := Install(context.Background(), e.client, g, m, nil, opts)
	return root, res, err
}

// assertRefusedUntouched checks a trust refusal naming every want, with
// the root (which did not exist) not created and its lock free.
func assertRefusedUntouched(t *testing.T, root, name string, err error, want ...string) {
	t.Helper()
	if !errors.Is(err, tiers.ErrRefused) {
		t.Fatalf("install: %v; want a trust refusal (exit 5)", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not say %q", err, w)
		}
	}
	if _, serr := os.Stat(root); !os.IsNotExist(serr) {
		t.Errorf("the refused install of %s wrote the root (%v)", name, serr)
	}
	rec, rerr := ReadReceipts(root)
	if rerr != nil || len(rec.Skills) != 0 {
		t.Errorf("receipts after a refusal: %+v (%v)", rec, rerr)
	}
	entries, _ := os.ReadDir(filepath.Join(root, stateDir))
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), txPrefix) {
			t.Errorf("staging %s left in the root", en.Name())
		}
	}
	l, lerr := Lock(context.Background(), root, time.Second)
	if lerr != nil {
		t.Fatalf("the root's lock is still held after the refusal: %v", lerr)
	}
	l.Unlock()
}

func honestAnnotations(a *registry.Artifact) map[string]string {
	ann := map[string]string{}
	for k, v := range a.Manifest.Annotations {
		ann[k] = v
	}
	return ann
}

var dangerous = []string{"shell:execute", "network:write", "desktop:control", "database:write"}

// TestInstallRefusesLyingAnnotations: the permissions annotation says []
// while the layer's SKILL.md declares shell:execute, network:write,
// desktop:control and database:write. The old install took the
// annotation's word and installed it with exit 0 and no grant.
func TestInstallRefusesLyingAnnotations(t *testing.T) {
	e := newHostileEnv(t)
	a := e.build("liar", "liar", map[string]string{"SKILL.md": skillMD("liar", "1.0.0", dangerous...)})
	ann := honestAnnotations(a)
	ann[registry.AnnotationPermissions] = "[]"
	e.pushCrafted("liar", "1.0.0", a, a.Config, ann)
	root, _, err := e.install("liar", nil)
	assertRefusedUntouched(t, root, "liar", err, "liar@1.0.0", "permissions", "[]", "desktop:control", "shell:execute")
	var ce *registry.ContentMismatchError
	if !errors.As(err, &ce) || ce.Field != "permissions" || ce.FromConfig {
		t.Errorf("err %v: want a *ContentMismatchError on the permissions annotation", err)
	}
}

// TestInstallRefusesPermissionsOnlyInConfig: no permissions annotation,
// and a config that declares none, while the layer declares dangerous
// ones. The old install read the permissions from the config.
func TestInstallRefusesPermissionsOnlyInConfig(t *testing.T) {
	e := newHostileEnv(t)
	a := e.build("cfg", "cfg", map[string]string{"SKILL.md": skillMD("cfg", "1.0.0", dangerous...)})
	clean := e.build("cfg-clean", "cfg", map[string]string{"SKILL.md": skillMD("cfg", "1.0.0")})
	ann := honestAnnotations(a)
	delete(ann, registry.AnnotationPermissions)
	e.pushCrafted("cfg", "1.0.0", a, clean.Config, ann)
	root, _, err := e.install("cfg", nil)
	assertRefusedUntouched(t, root, "cfg", err, "cfg@1.0.0", "config", "permissions", "database:write")
	var ce *registry.ContentMismatchError
	if !errors.As(err, &ce) || !ce.FromConfig {
		t.Errorf("err %v: want a *ContentMismatchError naming the config", err)
	}
}

// TestInstallRefusesImpostor: repository att/impostor whose manifest and
// config say impostor 1.0.0 holds a layer whose SKILL.md says honest
// 9.9.9. The old install put it in place as impostor 1.0.0.
func TestInstallRefusesImpostor(t *testing.T) {
	e := newHostileEnv(t)
	layer := e.build("honest", "honest", map[string]string{"SKILL.md": skillMD("honest", "9.9.9")})
	index := e.build("impostor", "impostor", map[string]string{"SKILL.md": skillMD("impostor", "1.0.0")})
	ann := honestAnnotations(index)
	ann[registry.AnnotationTree] = layer.Pack.TreeHash // the files' own hash: only the names lie
	e.pushCrafted("impostor", "1.0.0", layer, index.Config, ann)
	root, _, err := e.install("impostor", nil)
	assertRefusedUntouched(t, root, "impostor", err, "impostor@1.0.0", "name", "honest")
}

// TestInstallDangerousNeedsConsentFromLayer: a community-signed skill
// whose layer declares shell:execute (dangerous, within the community
// ceiling) while its annotation declares nothing, installed with no
// --grant, no --yes and no terminal. The old install asked nothing.
// The honest artifact of the same skill is refused for lack of consent,
// and installs with --grant, recording the grant.
func TestInstallDangerousNeedsConsentFromLayer(t *testing.T) {
	e := newHostileEnv(t)
	a := e.build("code", "code", map[string]string{"SKILL.md": skillMD("code", "1.0.0", "shell:execute")})
	ann := honestAnnotations(a)
	ann[registry.AnnotationPermissions] = "[]"
	e.pushCrafted("code", "1.0.0", a, a.Config, ann)
	root, _, err := e.install("code", nil)
	assertRefusedUntouched(t, root, "code", err, "code@1.0.0", "shell:execute")

	honest := e.build("honest-code", "honest-code", map[string]string{"SKILL.md": skillMD("honest-code", "1.0.0", "shell:execute")})
	e.pushCrafted("honest-code", "1.0.0", honest, honest.Config, honestAnnotations(honest))
	root, _, err = e.install("honest-code", nil)
	assertRefusedUntouched(t, root, "honest-code", err, "shell:execute", "grant shell:execute")
	if !errors.Is(err, tiers.ErrNeedsConsent) {
		t.Errorf("honest artifact: %v, want ErrNeedsConsent", err)
	}
	_, res, err := e.install("honest-code", func(o *Options) { o.Grants = []string{"shell:execute"} })
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Plan[0].Grants; len(g) != 1 || g[0].Permission != "shell:execute" || g[0].By != string(tiers.GrantedByFlag) {
		t.Errorf("grants %+v, want shell:execute by grant", g)
	}
}

// TestInstallRecordsTreeFromLayer: a manifest without a tree hash used to
// record tree "" in the receipt and the lock, so edits were never seen.
// The tree of the verified layer's files is recorded instead.
func TestInstallRecordsTreeFromLayer(t *testing.T) {
	e := newHostileEnv(t)
	a := e.build("notree", "notree", map[string]string{"SKILL.md": skillMD("notree", "1.0.0")})
	ann := honestAnnotations(a)
	delete(ann, registry.AnnotationTree)
	e.pushCrafted("notree", "1.0.0", a, a.Config, ann)
	root, res, err := e.install("notree", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rec.Get("notree")
	if r.Tree != a.Pack.TreeHash || res.Lock.Get("notree").Tree != a.Pack.TreeHash {
		t.Fatalf("receipt tree %q, lock tree %q, want the layer's %s", r.Tree, res.Lock.Get("notree").Tree, a.Pack.TreeHash)
	}
	if err := os.WriteFile(filepath.Join(root, "notree", "SKILL.md"), []byte(skillMD("notree", "1.0.0")+"edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := List(context.Background(), []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}})
	if err != nil || len(items) != 1 || !items[0].Edited {
		t.Errorf("list after an edit: %+v (%v), want notree edited", items, err)
	}
}

// TestInstallRefusesVCSMetadata: a layer made by hand holding
// .git/config with core.fsmonitor set used to install; any git status in
// the installed skill (a prompt, an editor) then ran the command.
func TestInstallRefusesVCSMetadata(t *testing.T) {
	e := newHostileEnv(t)
	a := e.build("gitty", "gitty", map[string]string{"SKILL.md": skillMD("gitty", "1.0.0")})
	var raw bytes.Buffer
	gz := gzip.NewWriter(&raw)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{
		{"SKILL.md", skillMD("gitty", "1.0.0")},
		{".git/config", "[core]\n\tfsmonitor = \"touch pwned\"\n"},
		{".git/HEAD", "ref: refs/heads/main\n"},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	crafted := *a
	crafted.Layer = raw.Bytes()
	crafted.Manifest.Layers = []ocispec.Descriptor{{MediaType: a.Manifest.Layers[0].MediaType, Digest: digest.FromBytes(crafted.Layer), Size: int64(len(crafted.Layer)), Annotations: a.Manifest.Layers[0].Annotations}}
	ann := honestAnnotations(a)
	delete(ann, registry.AnnotationTree)
	e.pushCrafted("gitty", "1.0.0", &crafted, a.Config, ann)
	root, _, err := e.install("gitty", nil)
	if !errors.Is(err, archive.ErrImplicitExec) || !strings.Contains(err.Error(), ".git/config") {
		t.Fatalf("install: %v, want ErrImplicitExec naming .git/config", err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the refused install wrote the root (%v)", err)
	}
}

// TestGrantReachesOnlyNamedSkills: --grant shell:execute given for app
// used to grant it to every dependency too. A dependency now needs
// --grant dep:shell:execute, and the refusal shows the chain.
func TestGrantReachesOnlyNamedSkills(t *testing.T) {
	e := newHostileEnv(t)
	dep := e.build("dep", "dep", map[string]string{"SKILL.md": skillMD("dep", "1.0.0", "shell:execute")})
	e.pushCrafted("dep", "1.0.0", dep, dep.Config, honestAnnotations(dep))
	appMD := strings.Replace(skillMD("app", "1.0.0", "shell:execute"), "    permissions:\n", "    requirements:\n      skills:\n        dep: ^1\n    permissions:\n", 1)
	app := e.build("app", "app", map[string]string{"SKILL.md": appMD})
	e.pushCrafted("app", "1.0.0", app, app.Config, honestAnnotations(app))
	root, _, err := e.install("app", func(o *Options) { o.Grants = []string{"shell:execute"} })
	assertRefusedUntouched(t, root, "app", err, "dep@1.0.0", "grant dep:shell:execute", "app@1.0.0 -> dep@1.0.0")
	_, res, err := e.install("app", func(o *Options) { o.Grants = []string{"shell:execute", "dep:shell:execute"} })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Plan {
		if len(p.Grants) != 1 || p.Grants[0].By != string(tiers.GrantedByFlag) {
			t.Errorf("%s grants %+v", p.Lock.Name, p.Grants)
		}
	}
}

// TestGaiaRootCarriesEnforcedTier: GAIA shows the tier in the installed
// SKILL.md, which used to be the publisher's claim (verified) although
// skillpm enforced community. The installed copy now says community, its
// receipt records that copy's tree (list does not call it edited), and
// Describe keeps both the claim and the enforced tier.
func TestGaiaRootCarriesEnforcedTier(t *testing.T) {
	e := newHostileEnv(t)
	md := strings.Replace(skillMD("claimer", "1.0.0"), "security_tier: community", "security_tier: verified", 1)
	a := e.build("claimer", "claimer", map[string]string{"SKILL.md": md})
	e.pushCrafted("claimer", "1.0.0", a, a.Config, honestAnnotations(a))
	var root string
	_, _, err := e.install("claimer", func(o *Options) {
		root = filepath.Join(e.work, "gaia-root")
		o.Roots = []Root{{Host: HostGaia, Scope: ScopeUser, Dir: root}}
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "claimer", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "security_tier: community") || strings.Contains(string(got), "verified") {
		t.Errorf("installed SKILL.md:\n%s\nwant security_tier: community", got)
	}
	roots := []Root{{Host: HostGaia, Scope: ScopeUser, Dir: root}}
	items, err := List(context.Background(), roots)
	if err != nil || len(items) != 1 || items[0].Edited || items[0].Tier != "community" {
		t.Errorf("list: %+v (%v), want claimer community, not edited", items, err)
	}
	in, err := Describe(context.Background(), roots, "claimer")
	if err != nil || len(in) != 1 || in[0].Tier != "community" || in[0].Claimed != "verified" || in[0].Edited {
		t.Errorf("describe: %+v (%v), want enforced community, claimed verified", in, err)
	}
}
