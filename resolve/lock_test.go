package resolve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
)

// memCatalog is an in-memory Catalog over canonical repositories, with
// dependencies stored as written and qualified the way the registry's
// Graph qualifies them.
type memCatalog struct {
	ns    Namespace
	repos map[string]map[string]memRelease // repository -> version -> release
}

type memRelease struct {
	deps   map[string]string
	digest string
}

func newMemCatalog(def string) *memCatalog {
	return &memCatalog{ns: Namespace{Default: def}, repos: map[string]map[string]memRelease{}}
}

// add publishes repository@version requiring deps (names as written).
func (c *memCatalog) add(repo, version string, deps map[string]string) {
	if c.repos[repo] == nil {
		c.repos[repo] = map[string]memRelease{}
	}
	c.repos[repo][version] = memRelease{deps: deps, digest: digest.FromString(repo + "@" + version).String()}
}

func (c *memCatalog) Namespace() Namespace { return c.ns }

func (c *memCatalog) Versions(_ context.Context, key string) ([]*semver.Version, error) {
	rs, ok := c.repos[c.ns.Repository(key)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	var out []*semver.Version
	for v := range rs {
		out = append(out, semver.MustParse(v))
	}
	return out, nil
}

func (c *memCatalog) Dependencies(_ context.Context, key string, v *semver.Version) (map[string]string, error) {
	out := map[string]string{}
	for dep, r := range c.repos[c.ns.Repository(key)][v.String()].deps {
		q, err := c.ns.Qualify(key, dep)
		if err != nil {
			return nil, err
		}
		out[q] = r
	}
	return out, nil
}

func (c *memCatalog) Describe(_ context.Context, key string, v *semver.Version) (Artifact, error) {
	rel, ok := c.repos[c.ns.Repository(key)][v.String()]
	if !ok {
		return Artifact{}, fmt.Errorf("%s@%s: %w", key, v, ErrNotFound)
	}
	return Artifact{Digest: rel.digest, Tree: digest.FromString("tree " + rel.digest).String()}, nil
}

// basicCatalog is what testdata/project/basic/skills.yaml resolves
// against. A decoy format in the default namespace must never stand in for
// the format lint needs from its own.
func basicCatalog() *memCatalog {
	c := newMemCatalog("ghcr.io/acme/skills")
	const acme, other = "ghcr.io/acme/skills/", "ghcr.io/other/tools/"
	for _, v := range []string{"1.4.0", "1.4.2", "1.5.0"} {
		c.add(acme+"web-research", v, nil)
	}
	c.add(acme+"fix", "1.0.0", map[string]string{"diagnosis": "^1", "code": "^1"})
	c.add(acme+"fix", "1.1.0", map[string]string{"diagnosis": "^1", "code": "^1.2", "ghcr.io/other/tools/lint": "^1"})
	c.add(acme+"fix", "2.0.0", nil)
	c.add(acme+"diagnosis", "1.0.0", nil)
	c.add(acme+"diagnosis", "1.1.0", nil)
	for _, v := range []string{"1.0.0", "1.2.0", "1.3.0", "2.0.0"} {
		c.add(acme+"code", v, nil)
	}
	c.add(other+"lint", "1.0.0", nil)
	c.add(other+"lint", "1.5.0", map[string]string{"format": "^1"})
	c.add(other+"format", "1.0.0", nil)
	c.add(acme+"format", "1.9.0", nil) // the decoy
	for _, v := range []string{"0.9.0", "1.0.0", "1.1.0-beta.1"} {
		c.add(acme+"triage", v, nil)
	}
	return c
}

func lockOrFatal(t *testing.T, cat Catalog, m *Manifest, prev *Lockfile, opts LockOptions) *Lockfile {
	t.Helper()
	l, err := Lock(context.Background(), cat, m, prev, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func versions(l *Lockfile) string {
	var parts []string
	for _, s := range l.Skills {
		parts = append(parts, s.Name+" "+s.Version)
	}
	return strings.Join(parts, ", ")
}

// TestLockGolden resolves basic/skills.yaml, gives two entries the tier
// and signers install would record, and holds the result to the golden
// basic/skills.lock; locking again with it as the previous lock gives it
// back byte for byte.
func TestLockGolden(t *testing.T) {
	m := readManifest(t, "basic/skills.yaml")
	cat := basicCatalog()
	l := lockOrFatal(t, cat, m, nil, LockOptions{})
	if got, want := versions(l), "code 1.3.0, diagnosis 1.1.0, fix 1.1.0, format 1.0.0, lint 1.5.0, triage 1.0.0, web-research 1.4.2"; got != want {
		t.Fatalf("resolved %s\nwant     %s", got, want)
	}
	if f := l.Get("format"); f.Source != "ghcr.io/other/tools/format" {
		t.Errorf("format comes from %s: a bare dependency must stay in its dependent's namespace", f.Source)
	}
	if fix := l.Get("fix"); !reflect.DeepEqual(fix.Dependencies, map[string]string{"code": "1.3.0", "diagnosis": "1.1.0", "lint": "1.5.0"}) || fix.Requested != "^1" {
		t.Errorf("fix entry: %+v", fix)
	}
	if c := l.Get("code"); c.Requested != "" || c.Digest != cat.repos["ghcr.io/acme/skills/code"]["1.3.0"].digest {
		t.Errorf("code entry: %+v", c)
	}
	l.Get("fix").Tier = "verified"
	l.Get("fix").Signers = []Signer{
		{Subject: "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main", Issuer: "https://token.actions.githubusercontent.com"},
		{KeyFingerprint: "sha256:2f3c5e0d8a1b4c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"},
	}
	l.Get("lint").Tier = "community"
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(projectDir, "basic", "skills.lock")
	checkGolden(t, golden, data)

	prev, err := ParseLockfile(golden, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := prev.Satisfies(m, cat.Namespace()); err != nil {
		t.Errorf("the lock does not satisfy its own manifest: %v", err)
	}
	again := lockOrFatal(t, cat, m, prev, LockOptions{})
	if out, _ := again.Marshal(); string(out) != string(data) {
		t.Errorf("relocking changed the lock:\n%s", out)
	}
	if _, err := Lock(context.Background(), cat, m, prev, LockOptions{Frozen: true}); err != nil {
		t.Errorf("frozen lock of an up-to-date lock: %v", err)
	}
}

// TestLockPrefersPrevious keeps locked versions while they satisfy, and
// moves only what must move.
func TestLockPrefersPrevious(t *testing.T) {
	cat := newMemCatalog("")
	cat.add("embedded/fix", "1.0.0", map[string]string{"code": "^1"})
	cat.add("embedded/code", "1.0.0", nil)
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "fix", Range: "^1", Line: 2}}}
	first := lockOrFatal(t, cat, m, nil, LockOptions{})
	cat.add("embedded/fix", "1.1.0", map[string]string{"code": "^1.1"})
	cat.add("embedded/code", "1.1.0", nil)
	cat.add("embedded/code", "1.2.0", nil)
	if got := versions(lockOrFatal(t, cat, m, first, LockOptions{})); got != "code 1.0.0, fix 1.0.0" {
		t.Errorf("with a lock: %s, want the locked versions", got)
	}
	if got := versions(lockOrFatal(t, cat, m, nil, LockOptions{})); got != "code 1.2.0, fix 1.1.0" {
		t.Errorf("without a lock: %s, want the newest", got)
	}
	m.Skills = append(m.Skills, Requirement{Name: "code", Range: "^1.1", Line: 3})
	if got := versions(lockOrFatal(t, cat, m, first, LockOptions{})); got != "code 1.2.0, fix 1.0.0" {
		t.Errorf("tightened code: %s, want fix kept and code moved", got)
	}
}

func TestLockNoFallThrough(t *testing.T) {
	cat := newMemCatalog("ghcr.io/acme/skills")
	cat.add("ghcr.io/other/tools/lint", "1.0.0", map[string]string{"format": "^1"})
	cat.add("ghcr.io/acme/skills/format", "1.0.0", nil) // same name, another registry
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "ghcr.io/other/tools/lint", Range: "^1"}}}
	_, err := Lock(context.Background(), cat, m, nil, LockOptions{})
	var nse *NoSolutionError
	if !errors.As(err, &nse) {
		t.Fatalf("got %v, want no solution", err)
	}
	if !strings.Contains(nse.Explanation, "ghcr.io/other/tools/format") {
		t.Errorf("the explanation should name the qualified dependency:\n%s", nse.Explanation)
	}
}

func TestLockNameConflict(t *testing.T) {
	cat := newMemCatalog("ghcr.io/acme/skills")
	cat.add("ghcr.io/acme/skills/fix", "1.0.0", map[string]string{"lint": "*", "ghcr.io/other/tools/code": "*"})
	cat.add("ghcr.io/acme/skills/lint", "1.0.0", map[string]string{"code": "*"})
	cat.add("ghcr.io/acme/skills/code", "1.0.0", nil)
	cat.add("ghcr.io/other/tools/code", "1.0.0", nil)
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "fix", Range: "^1"}}}
	_, err := Lock(context.Background(), cat, m, nil, LockOptions{})
	if !errors.Is(err, ErrNameConflict) || !strings.Contains(err.Error(), "ghcr.io/acme/skills/code and ghcr.io/other/tools/code") {
		t.Errorf("got %v, want a name conflict naming both repositories", err)
	}
}

func TestLockSameSkillTwice(t *testing.T) {
	m, err := ParseManifest("skills.yaml", []byte("registry: ghcr.io/acme/skills\nskills:\n  fix: ^1\n  ghcr.io/acme/skills/fix: ^1.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(context.Background(), newMemCatalog("ghcr.io/acme/skills"), m, nil, LockOptions{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 4 || !strings.Contains(err.Error(), "names the same skill as fix (line 3)") {
		t.Errorf("got %v, want a positioned error", err)
	}
}

// TestLockOptional skips gaia-agent.yaml's optional skills when they are
// not published or conflict, with a warning, and fails on required ones.
func TestLockOptional(t *testing.T) {
	m := readManifest(t, "gaia/gaia-agent.yaml")
	cat := basicCatalog()
	var warnings []string
	opts := LockOptions{Warn: func(s string) { warnings = append(warnings, s) }}
	l := lockOrFatal(t, cat, m, nil, opts)
	if l.Get("translate") != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "skipping optional skill translate ^2: it is not published") {
		t.Errorf("translate: %v, warnings %q", l.Get("translate"), warnings)
	}
	// Published, but conflicting with the required skills.
	cat.add("ghcr.io/acme/skills/translate", "2.0.0", map[string]string{"code": "^2"})
	warnings = nil
	l = lockOrFatal(t, cat, m, nil, opts)
	if l.Get("translate") != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "conflicts with the other requirements") {
		t.Errorf("conflicting translate: %v, warnings %q", l.Get("translate"), warnings)
	}
	// Satisfiable: kept.
	cat.add("ghcr.io/acme/skills/translate", "2.1.0", nil)
	warnings = nil
	l = lockOrFatal(t, cat, m, nil, opts)
	if tr := l.Get("translate"); tr == nil || tr.Version != "2.1.0" || len(warnings) != 0 {
		t.Errorf("translate: %+v, warnings %q", tr, warnings)
	}
	// A required skill that is not published fails.
	m.Skills = append(m.Skills, Requirement{Name: "missing", Range: AnyRange})
	if _, err := Lock(context.Background(), cat, m, nil, opts); !errors.Is(err, ErrNoSolution) {
		t.Errorf("required missing skill: %v, want no solution", err)
	}
}

// TestLockFrozen fails, naming the difference, whenever the lock would
// change, and passes when it would not (even with newer versions out).
func TestLockFrozen(t *testing.T) {
	ctx := context.Background()
	newCat := func() *memCatalog {
		c := newMemCatalog("")
		c.add("embedded/fix", "1.0.0", map[string]string{"code": "^1"})
		c.add("embedded/code", "1.0.0", nil)
		c.add("embedded/code", "2.0.0", nil)
		return c
	}
	manifest := func(lines ...string) *Manifest {
		m, err := ParseManifest("skills.yaml", []byte("skills:\n"+strings.Join(lines, "")))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := manifest("  fix: ^1\n")
	good := lockOrFatal(t, newCat(), base, nil, LockOptions{})
	good.File = "project/skills.lock"

	tests := []struct {
		name string
		cat  func() *memCatalog
		m    *Manifest
		prev func() *Lockfile
		want []string // substrings of the differences; none: passes
	}{
		{name: "up to date", cat: newCat, m: base, prev: func() *Lockfile { return good }},
		{name: "newer versions published", m: base, prev: func() *Lockfile { return good },
			cat: func() *memCatalog {
				c := newCat()
				c.add("embedded/fix", "1.1.0", nil)
				c.add("embedded/code", "1.5.0", nil)
				return c
			}},
		{name: "no lock", cat: newCat, m: base, prev: func() *Lockfile { return nil }, want: []string{"there is no lock"}},
		{name: "skill added", cat: newCat, m: manifest("  fix: ^1\n", "  code: ^2\n"), prev: func() *Lockfile { return good },
			want: []string{"code: locked at 1.0.0, which is not in ^2"}},
		{name: "new root", cat: func() *memCatalog { c := newCat(); c.add("embedded/lint", "1.0.0", nil); return c },
			m: manifest("  fix: ^1\n", "  lint: ^1\n"), prev: func() *Lockfile { return good }, want: []string{"lint ^1: not in the lock"}},
		{name: "range moved", cat: newCat, m: manifest("  fix: ^2\n"), prev: func() *Lockfile { return good },
			want: []string{"fix: locked at 1.0.0, which is not in ^2"}},
		{name: "root dropped", cat: newCat, m: manifest(), prev: func() *Lockfile { return good },
			want: []string{"fix: locked as requested (^1), but the manifest no longer lists it", "code 1.0.0: in the lock, but nothing needs it"}},
		{name: "requested text changed", cat: newCat, m: manifest("  fix: ^1.0\n"), prev: func() *Lockfile { return good },
			want: []string{"fix: requested ^1 in the lock; the manifest asks for ^1.0"}},
		{name: "republished", m: base, prev: func() *Lockfile { return good },
			cat: func() *memCatalog {
				c := newCat()
				c.repos["embedded/code"]["1.0.0"] = memRelease{digest: digest.FromString("other").String()}
				return c
			},
			want: []string{"code 1.0.0: locked as sha256:", "(republished)"}},
		{name: "dependency missing from the lock", cat: newCat, m: base,
			prev: func() *Lockfile {
				l := good.clone()
				l.Skills = l.Skills[1:] // drop code
				return l
			},
			want: []string{"fix: needs code 1.0.0, which is not in the lock"}},
		{name: "dependency version edited", cat: newCat, m: base,
			prev: func() *Lockfile {
				l := good.clone()
				l.Get("code").Version = "2.0.0"
				return l
			},
			want: []string{"fix: needs code 1.0.0, the lock has 2.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Lock(ctx, tt.cat(), tt.m, tt.prev(), LockOptions{Frozen: true})
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("frozen: %v", err)
				}
				if versions(l) != versions(good) {
					t.Errorf("frozen lock changed: %s", versions(l))
				}
				return
			}
			var se *StaleError
			if !errors.As(err, &se) || !errors.Is(err, ErrLockStale) {
				t.Fatalf("got %v, want a *StaleError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if tt.prev() != nil && se.Lock != "project/skills.lock" {
				t.Errorf("StaleError.Lock = %q, want the lock's path", se.Lock)
			}
		})
	}
}

// TestLockKeepsInstallFields carries tier and signers over only while the
// version and digest are the same.
func TestLockKeepsInstallFields(t *testing.T) {
	cat := newMemCatalog("")
	cat.add("embedded/fix", "1.0.0", nil)
	m := &Manifest{File: "skills.yaml", Skills: []Requirement{{Name: "fix", Range: "^1"}}}
	prev := lockOrFatal(t, cat, m, nil, LockOptions{})
	prev.Skills[0].Tier = "verified"
	prev.Skills[0].Signers = []Signer{{KeyFingerprint: "sha256:ab"}}
	if got := lockOrFatal(t, cat, m, prev, LockOptions{}).Get("fix"); got.Tier != "verified" || len(got.Signers) != 1 {
		t.Errorf("same version: %+v, want tier and signers kept", got)
	}
	// Republished (forced): same version, another digest.
	cat.repos["embedded/fix"]["1.0.0"] = memRelease{digest: digest.FromString("again").String()}
	if got := lockOrFatal(t, cat, m, prev, LockOptions{}).Get("fix"); got.Tier != "" || got.Signers != nil {
		t.Errorf("new digest: %+v, want tier and signers dropped", got)
	}
}
