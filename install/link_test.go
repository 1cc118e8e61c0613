package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// linkEnv is a home and a project under a temporary directory.
func linkEnv(t *testing.T, vars map[string]string) Env {
	t.Helper()
	base := t.TempDir()
	env := Env{Home: filepath.Join(base, "home"), Cwd: filepath.Join(base, "proj"),
		Getenv: func(k string) string { return vars[k] }}
	if len(vars) > 0 {
		tb, err := hosts.Load(env)
		if err != nil {
			t.Fatal(err)
		}
		env.Hosts = tb
	}
	return env
}

func (r *testRegistry) installInto(roots []Root, names ...string) (*Result, error) {
	m := &resolve.Manifest{File: "test"}
	for _, n := range names {
		m.Skills = append(m.Skills, resolve.Requirement{Name: n, Range: resolve.AnyRange})
	}
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	return Install(context.Background(), r.client, g, m, nil, Options{Auditor: newTestAuditor(), Roots: roots, AllowExperimental: true, AgentsRoots: agentsBeside(roots)})
}

// agentsBeside is the agents root beside each of roots (<home>/.claude/skills
// has <home>/.agents/skills), where linkEnv's copies are.
func agentsBeside(roots []Root) []string {
	var out []string
	for _, r := range roots {
		out = append(out, filepath.Join(filepath.Dir(filepath.Dir(r.Dir)), ".agents", "skills"))
	}
	return out
}

func (r *testRegistry) updateRoots(roots []Root) (*Result, error) {
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	return Update(context.Background(), r.client, g, nil, Options{Auditor: newTestAuditor(), Roots: roots, AllowExperimental: true, AgentsRoots: agentsBeside(roots)})
}

func mustPlace(t *testing.T, hs []HostID, s Scope, env Env, mode Placement) *Placed {
	t.Helper()
	p, err := PlaceRoots(hs, s, env, mode)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func receipt(t *testing.T, root, name string) Record {
	t.Helper()
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rec.Get(name)
	if !ok {
		t.Fatalf("no receipt of %s in %s", name, root)
	}
	return r
}

// TestLinkInstall: --link for Claude Code and Codex puts one copy in
// ~/.agents/skills (which Codex reads, so it needs no link) and a relative
// symlink in ~/.claude/skills; the receipts say link vs copy, which links
// point to the copy and which hosts read it. Installing again changes
// nothing, an update through the link's root updates the copy and the
// link's receipt, and removing the link keeps the copy Codex reads.
func TestLinkInstall(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("pdf", "1.0.0", nil, map[string]string{"ref/a.md": "a"})
	env := linkEnv(t, nil)
	p := mustPlace(t, []HostID{HostClaude, HostCodex}, ScopeUser, env, PlaceLink)
	canon, claude := filepath.Join(env.Home, ".agents", "skills"), filepath.Join(env.Home, ".claude", "skills")
	if len(p.Roots) != 2 || p.Roots[0].Dir != canon || p.Roots[0].LinkOnly || p.Roots[1].Dir != claude || p.Roots[1].Link != canon {
		t.Fatalf("roots: %+v", p.Roots)
	}
	if _, err := reg.installInto(p.Roots, "pdf"); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(claude, "pdf")
	if txt, err := os.Readlink(link); err != nil || txt != "../../.agents/skills/pdf" {
		t.Fatalf("link %s: %q %v", link, txt, err)
	}
	if b, err := os.ReadFile(filepath.Join(link, "ref", "a.md")); err != nil || string(b) != "a" {
		t.Fatalf("reading through the link: %q %v", b, err)
	}
	c, l := receipt(t, canon, "pdf"), receipt(t, claude, "pdf")
	if c.Mode != ModeCopy || !slices.Equal(c.LinkedFrom, []string{link}) || c.LinkOnly {
		t.Errorf("copy receipt: %+v", c)
	}
	for _, h := range []string{"claude", "codex", "opencode"} {
		if !slices.Contains(c.ReadBy, h) {
			t.Errorf("copy receipt's readBy %v lacks %s", c.ReadBy, h)
		}
	}
	if l.Mode != ModeLink || l.Link != filepath.Join(canon, "pdf") || l.Digest != c.Digest || !slices.Equal(l.ReadBy, []string{"amp", "claude", "crush", "gaia", "goose", "opencode"}) {
		t.Errorf("link receipt: %+v", l)
	}
	ls, err := List(ctx, []Root{{Host: HostClaude, Scope: ScopeUser, Dir: claude}})
	if err != nil || len(ls) != 1 || ls[0].Mode != ModeLink || ls[0].Link == "" || ls[0].Edited || !ls[0].Managed {
		t.Fatalf("list: %+v %v", ls, err)
	}

	res, err := reg.installInto(p.Roots, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range res.Roots {
		if len(rr.Installed) != 0 {
			t.Errorf("second install changed %s: %v", rr.Root.Dir, rr.Installed)
		}
	}

	// update keeps the link: the copy moves to 1.1.0, the link still points to it.
	reg.publish("pdf", "1.1.0", nil, nil)
	if _, err := reg.updateRoots([]Root{{Host: HostClaude, Scope: ScopeUser, Dir: claude}}); err != nil {
		t.Fatal(err)
	}
	if c := receipt(t, canon, "pdf"); c.Version != "1.1.0" || !slices.Equal(c.LinkedFrom, []string{link}) {
		t.Errorf("copy after update: %+v", c)
	}
	if l := receipt(t, claude, "pdf"); l.Version != "1.1.0" || l.Mode != ModeLink {
		t.Errorf("link after update: %+v", l)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("update replaced the link: %v %v", fi, err)
	}

	// The copy Codex reads stays when the link goes; it cannot go while linked.
	if _, err := Remove(ctx, canon, []string{"pdf"}, RemoveOptions{}); !errors.Is(err, ErrLinked) {
		t.Fatalf("removing a linked copy: %v", err)
	}
	if _, err := Remove(ctx, claude, []string{"pdf"}, RemoveOptions{AgentsRoots: AgentsRoots(env)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("link left: %v", err)
	}
	if c := receipt(t, canon, "pdf"); len(c.LinkedFrom) != 0 {
		t.Errorf("copy still records links: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(canon, "pdf", "SKILL.md")); err != nil {
		t.Errorf("the copy Codex reads went with the link: %v", err)
	}
}

// TestLinkOnlyCopyGoesWithLastLink: a copy made only for links (no host
// asked for reads the agents root) is removed with the last link, and
// not before.
func TestLinkOnlyCopyGoesWithLastLink(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("pdf", "1.0.0", nil, nil)
	env := linkEnv(t, nil)
	p := mustPlace(t, []HostID{HostClaude, "windsurf"}, ScopeUser, env, PlaceLink)
	canon := filepath.Join(env.Home, ".agents", "skills")
	if len(p.Roots) != 3 || !p.Roots[0].LinkOnly || p.Roots[1].Link != canon || p.Roots[2].Link != canon {
		t.Fatalf("roots: %+v", p.Roots)
	}
	if _, err := reg.installInto(p.Roots, "pdf"); err != nil {
		t.Fatal(err)
	}
	if c := receipt(t, canon, "pdf"); !c.LinkOnly || len(c.LinkedFrom) != 2 {
		t.Fatalf("copy receipt: %+v", c)
	}
	res, err := Remove(ctx, p.Roots[1].Dir, []string{"pdf"}, RemoveOptions{AgentsRoots: AgentsRoots(env)})
	if err != nil || len(res.Notes) != 0 {
		t.Fatalf("first link: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(canon, "pdf")); err != nil {
		t.Fatalf("copy went while still linked: %v", err)
	}
	res, err = Remove(ctx, p.Roots[2].Dir, []string{"pdf"}, RemoveOptions{AgentsRoots: AgentsRoots(env)})
	if err != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "nothing links to") {
		t.Fatalf("last link: %+v %v", res, err)
	}
	if _, err := os.Lstat(filepath.Join(canon, "pdf")); !os.IsNotExist(err) {
		t.Errorf("copy left: %v", err)
	}
	if rec, _ := ReadReceipts(canon); len(rec.Skills) != 0 {
		t.Errorf("receipts left: %+v", rec.Skills)
	}
}

// TestPlaceRoots: hosts that read the agents root share its copy without
// a link; a host the table does not say follows symlinks, and GAIA (whose
// SKILL.md skillpm rewrites), get a copy with a note; in copy mode hosts
// sharing a root share one; auto mode links where a root holds links.
func TestPlaceRoots(t *testing.T) {
	dir := t.TempDir()
	hf := filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(hf, []byte(`hosts:
  - id: nolinks
    name: No Links
    user: [{dir: ~/.nolinks/skills}]
    project: [{dir: .nolinks/skills}]
    search: [project, user]
    duplicates: first-wins
    symlinks: unknown
    sources: [{fact: roots, ref: "test"}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := linkEnv(t, map[string]string{"SKILLPM_HOSTS": hf})
	p := mustPlace(t, []HostID{"nolinks", HostGaia, HostOpenCode}, ScopeUser, env, PlaceLink)
	var dirs []string
	for _, r := range p.Roots {
		dirs = append(dirs, strings.TrimPrefix(r.Dir, env.Home)+" link="+r.Link)
	}
	want := []string{"/.agents/skills link=", "/.nolinks/skills link=", "/.gaia/skills link="}
	if !slices.Equal(dirs, want) {
		t.Errorf("roots %v, want %v", dirs, want)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, w := range []string{"nolinks gets a copy", "does not say it follows symlinks", "gaia gets a copy", "opencode reads"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	// Copy mode at project scope: the .agents family shares one root.
	p = mustPlace(t, []HostID{"cursor", "copilot", HostCodex}, ScopeProject, env, PlaceCopy)
	if len(p.Roots) != 2 || !slices.Contains(p.Roots[0].ReadBy, "codex") || !slices.Contains(p.Roots[0].ReadBy, "cursor") {
		t.Errorf("copy roots: %+v", p.Roots)
	}
	// Auto: copies until a root holds a link.
	p = mustPlace(t, []HostID{HostClaude}, ScopeUser, env, PlaceAuto)
	if len(p.Roots) != 1 || p.Roots[0].Link != "" {
		t.Fatalf("auto without links: %+v", p.Roots)
	}
	claude := p.Roots[0].Dir
	tx, err := beginTxn(claude)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(context.Background(), &Receipts{Skills: []Record{{Name: "x", Mode: ModeLink, Link: "/elsewhere/x"}}}); err != nil {
		t.Fatal(err)
	}
	p = mustPlace(t, []HostID{HostClaude}, ScopeUser, env, PlaceAuto)
	if len(p.Roots) != 2 || p.Roots[1].Link == "" {
		t.Fatalf("auto with links: %+v", p.Roots)
	}
}

// linkSnapshot is snapshot that shows symlinks as links, not through them.
func linkSnapshot(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			txt, err := os.Readlink(p)
			lines = append(lines, rel+" -> "+txt)
			return err
		case fi.IsDir() && rel == stateDir:
			if b, err := os.ReadFile(filepath.Join(p, receiptsFile)); err == nil {
				lines = append(lines, "receipts="+string(b))
			}
			return filepath.SkipDir
		case fi.IsDir():
			return nil
		}
		b, err := os.ReadFile(p)
		lines = append(lines, rel+"="+string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// linkChange replaces the copy "a" by a link, replaces the link "l" by
// another, and removes the link "m", in one transaction.
func linkChange(root string, hook func(string) error) error {
	tx, err := beginTxn(root)
	if err != nil {
		return err
	}
	tx.hook = hook
	for name, target := range map[string]string{"a": "../canon/a", "l": "../canon/l2"} {
		if err := tx.StageLink(name, target); err != nil {
			return err
		}
	}
	tx.Remove("m")
	return tx.Commit(context.Background(), &Receipts{Skills: []Record{
		{Name: "a", Mode: ModeLink, Link: "canon/a"}, {Name: "l", Mode: ModeLink, Link: "canon/l2"}}})
}

func linkRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	tx, err := beginTxn(root)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, tx.StageDir("a"), map[string]string{"SKILL.md": "a v1"})
	for name, target := range map[string]string{"l": "../canon/l", "m": "../canon/m"} {
		if err := tx.StageLink(name, target); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(context.Background(), &Receipts{Skills: []Record{{Name: "a", Mode: ModeCopy},
		{Name: "l", Mode: ModeLink, Link: "canon/l"}, {Name: "m", Mode: ModeLink, Link: "canon/m"}}}); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLinkCrashAtEveryStep: a transaction that turns a copy into a link,
// retargets a link and removes one, stopped at each step as a crash would
// stop it, leaves after Recover exactly the root before or after it: the
// journal covers links like copies.
func TestLinkCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	before := linkSnapshot(t, linkRoot(t))
	afterRoot := linkRoot(t)
	var steps []string
	if err := linkChange(afterRoot, func(s string) error { steps = append(steps, s); return nil }); err != nil {
		t.Fatal(err)
	}
	after := linkSnapshot(t, afterRoot)
	if before == after || !strings.Contains(after, "a -> ../canon/a") || strings.Contains(after, "m ->") {
		t.Fatalf("the change did not do what it says:\n%s", after)
	}
	for i, step := range steps {
		t.Run(strings.ReplaceAll(step, ":", "_"), func(t *testing.T) {
			root := linkRoot(t)
			err := linkChange(root, func(s string) error {
				if s == step {
					return errCrash
				}
				return nil
			})
			if !errors.Is(err, errCrash) {
				t.Fatalf("commit did not stop at %s: %v", step, err)
			}
			if _, err := recoverTxn(ctx, root); err != nil {
				t.Fatal(err)
			}
			want := after
			if i == 0 {
				want = before
			}
			if got := linkSnapshot(t, root); got != want {
				t.Fatalf("crash at %s: root is neither before nor after:\n%s", step, got)
			}
		})
	}
}

// TestLinkRecordOutsideAgentsRoot: a committed link record naming a
// copy outside the agents roots (here a folder of the user's beside the
// project) is refused by remove, update and install, naming the receipts
// file and the record, before anything is locked, written or removed
// there or in the root.
func TestLinkRecordOutsideAgentsRoot(t *testing.T) {
	ctx := context.Background()
	reg := newTestRegistry(t)
	reg.publish("app", "1.0.0", nil, nil)
	env := linkEnv(t, nil)
	root := filepath.Join(env.Cwd, ".claude", "skills")
	victim := filepath.Join(filepath.Dir(env.Cwd), "victim")
	writeTree(t, filepath.Join(victim, "app"), map[string]string{"SKILL.md": "mine"})
	if err := os.MkdirAll(filepath.Join(root, stateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, "app"), filepath.Join(root, "app")); err != nil {
		t.Fatal(err)
	}
	rec := &Receipts{Skills: []Record{{Name: "app", Version: "1.0.0", Source: "embedded/app", Mode: ModeLink, Link: filepath.Join(victim, "app"), Requested: "*"}}}
	b, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, stateDir, receiptsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s: record 1 (\"app\"): the link's copy %s is not in an agents root (%s), the only place skillpm puts the copies links point to",
		filepath.Join(root, stateDir, receiptsFile), filepath.Join(victim, "app"), strings.Join(AgentsRoots(env), " or "))
	// The root holds a symlink to a folder, which snapshot does not walk.
	state := func() string {
		l, _ := os.Readlink(filepath.Join(root, "app"))
		b, _ := os.ReadFile(filepath.Join(root, stateDir, receiptsFile))
		return l + "\n" + string(b)
	}
	before, victimBefore := state(), snapshot(t, victim)
	g, err := catalog.New(reg.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	roots := []Root{{Host: HostClaude, Scope: ScopeProject, Dir: root}}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "app", Range: resolve.AnyRange}}}
	for name, run := range map[string]func() error{
		"remove": func() error {
			_, err := Remove(ctx, root, []string{"app"}, RemoveOptions{AgentsRoots: AgentsRoots(env)})
			return err
		},
		"update": func() error {
			_, err := Update(ctx, reg.client, g, nil, Options{Auditor: newTestAuditor(), Roots: roots, AllowExperimental: true, AgentsRoots: AgentsRoots(env)})
			return err
		},
		"install": func() error {
			_, err := Install(ctx, reg.client, g, m, nil, Options{Auditor: newTestAuditor(), Roots: roots, AllowExperimental: true, Force: true, AgentsRoots: AgentsRoots(env)})
			return err
		},
	} {
		if err := run(); !errors.Is(err, ErrUnsafeReceipt) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
		if after := state(); after != before {
			t.Errorf("%s changed the root:\n%s\n---\n%s", name, before, after)
		}
		if after := snapshot(t, victim); after != victimBefore {
			t.Errorf("%s changed the folder the link record names:\n%s\n---\n%s", name, victimBefore, after)
		}
		if _, err := os.Lstat(filepath.Join(victim, stateDir)); err == nil {
			t.Errorf("%s made skillpm state in the folder the link record names", name)
		}
	}
}
