package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/source"
)

// TestInstallListDetailRemove walks the happy path: a dry run shows the
// plan, the install writes the root, the list and detail show tier,
// version, source, permissions and grants, and remove takes it away.
func TestInstallListDetailRemove(t *testing.T) {
	f := newFixture(t, nil)

	var empty listBody
	if st := f.do("GET", "/api/skills", nil, nil, &empty); st != http.StatusOK || empty.Skills == nil || len(empty.Skills) != 0 {
		t.Fatalf("empty list: %d %+v", st, empty)
	}

	var plan api.InstallResult
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "fix@^1", Host: "claude", DryRun: true}, nil, &plan); st != http.StatusOK {
		t.Fatalf("dry run: %d %+v", st, plan)
	}
	if !plan.DryRun || len(plan.Skills) != 2 || plan.Skills[0].Name != "fix" || plan.Skills[0].Tier != "community" {
		t.Fatalf("plan = %+v", plan)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".claude", "skills", "fix")); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote the root: %v", err)
	}

	var res api.InstallResult
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "fix@^1", Host: "claude"}, nil, &res); st != http.StatusCreated {
		t.Fatalf("install: %d %+v", st, res)
	}
	if len(res.Roots) != 1 || !reflect.DeepEqual(res.Roots[0].Installed, []string{"fix", "notes"}) || res.Roots[0].Root.Host != "claude" || len(res.Changes) != 2 || res.Schema != api.SchemaInstall {
		t.Fatalf("install result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".claude", "skills", "fix", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// Again: up to date, 200.
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "fix@^1", Host: "claude"}, nil, &res); st != http.StatusOK || len(res.Roots) != 1 || len(res.Roots[0].Unchanged) != 2 || len(res.Changes) != 0 {
		t.Fatalf("reinstall: %d %+v", st, res)
	}

	got := f.installed("claude")
	fix, ok := got["fix"]
	if !ok || fix.Version != "1.0.0" || fix.Tier != "community" || fix.Source != "embedded/fix" || !fix.Managed || fix.Requested != "^1" || len(fix.Signers) != 1 {
		t.Fatalf("listed fix = %+v", fix)
	}
	if n := got["notes"]; n.Requested != "" {
		t.Errorf("notes is a dependency, listed as requested %q", n.Requested)
	}
	if len(f.installed("codex")) != 0 {
		t.Error("codex has skills it was never given")
	}

	var d api.Detail
	if st := f.do("GET", "/api/skills/notes?host=claude", nil, nil, &d); st != http.StatusOK {
		t.Fatalf("detail: %d", st)
	}
	if d.Name != "notes" || !reflect.DeepEqual(d.Dependents, []string{"fix"}) || !slices.Contains(d.Files, "SKILL.md") || !bytes.Contains(d.Manifest, []byte(`"name":"notes"`)) {
		t.Fatalf("detail = %+v manifest %s", d, d.Manifest)
	}
	var e errBody
	if st := f.do("GET", "/api/skills/nothere", nil, nil, &e); st != http.StatusNotFound || e.Error.ClassName != "not_found" {
		t.Fatalf("unknown detail: %d %+v", st, e)
	}
	if st := f.do("GET", "/api/skills/..?host=claude", nil, nil, &e); st == http.StatusOK {
		t.Fatalf("'..' answered %d", st)
	}

	var rm map[string]any
	if st := f.do("DELETE", "/api/skills/fix?host=claude&prune=true", nil, nil, &rm); st != http.StatusOK {
		t.Fatalf("remove: %d %v", st, rm)
	}
	if len(f.installed("claude")) != 0 {
		t.Fatalf("left after remove --prune: %v", f.installed("claude"))
	}
	if st := f.do("DELETE", "/api/skills/fix?host=claude", nil, nil, &e); st != http.StatusNotFound || e.Error.ClassName != "not_found" {
		t.Fatalf("remove again: %d %+v", st, e)
	}
}

// TestStreamedInstall reads the NDJSON stages of an install: resolving,
// fetching and verifying each skill, checking, committing, then done.
func TestStreamedInstall(t *testing.T) {
	f := newFixture(t, nil)
	body, _ := json.Marshal(api.InstallRequest{Ref: "fix", Host: "codex"})
	req, _ := http.NewRequest("POST", f.url+"/api/skills/install", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", api.NDJSON)
	req.Header.Set(api.TokenHeader, f.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != api.NDJSON {
		t.Fatalf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var stages []string
	var last api.Event
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		stages = append(stages, last.Stage+" "+last.Skill)
	}
	joined := strings.Join(stages, "\n")
	for _, want := range []string{"resolving ", "fetching fix@1.0.0", "verifying notes@1.0.0", "checking ", "committing ", "done "} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q in the stream:\n%s", want, joined)
		}
	}
	if last.Stage != "done" || last.Status != http.StatusCreated || last.Result == nil || len(last.Result.Roots) != 1 || len(last.Result.Roots[0].Installed) != 2 {
		t.Fatalf("last event = %+v", last)
	}

	// A refusal ends the stream with an error event carrying the status.
	body, _ = json.Marshal(api.InstallRequest{Ref: "code", Host: "codex"})
	req, _ = http.NewRequest("POST", f.url+"/api/skills/install", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", api.NDJSON)
	req.Header.Set(api.TokenHeader, f.token)
	res2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res2.Body.Close()
	data, _ := io.ReadAll(res2.Body)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Stage != "error" || last.Status != http.StatusUnprocessableEntity || last.Error == nil || last.Error.ClassName != "trust" {
		t.Fatalf("last event of a refusal = %s", lines[len(lines)-1])
	}
}

// TestTrustRefusals: nothing is granted that the request does not name;
// the refusal says, as JSON, what would be needed; a permission above the
// ceiling cannot be granted at all.
func TestTrustRefusals(t *testing.T) {
	f := newFixture(t, nil)
	root := filepath.Join(f.home, ".agents", "skills")

	cases := []struct {
		name     string
		req      api.InstallRequest
		kind     string
		grants   []string
		allowExp bool
	}{
		{"dangerous without grant", api.InstallRequest{Ref: "code"}, "needs_consent", []string{"shell:execute:git"}, false},
		{"experimental without the flag", api.InstallRequest{Ref: "wild"}, "experimental", []string{}, true},
		{"above the ceiling", api.InstallRequest{Ref: "desk", Grants: []string{"desktop:control"}}, "above_ceiling", []string{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, dry := range []bool{true, false} {
				c.req.DryRun = dry
				var e errBody
				if st := f.do("POST", "/api/skills/install", c.req, nil, &e); st != http.StatusUnprocessableEntity {
					t.Fatalf("dry=%v: %d %+v", dry, st, e)
				}
				if e.Error.ClassName != "trust" || len(e.Error.Refusals) == 0 || e.Error.Refusals[0].Kind != c.kind || e.Error.Needs == nil {
					t.Fatalf("dry=%v: error = %+v", dry, e.Error)
				}
				if !reflect.DeepEqual(e.Error.Needs.Grants, c.grants) || e.Error.Needs.AllowExperimental != c.allowExp {
					t.Errorf("needs = %+v, want grants %v allowExperimental %v", e.Error.Needs, c.grants, c.allowExp)
				}
				if e.Error.Message == "" || e.Error.Refusals[0].Reason == "" {
					t.Errorf("no message: %+v", e.Error)
				}
			}
			if _, err := os.Stat(filepath.Join(root, strings.SplitN(c.req.Ref, "@", 2)[0])); !os.IsNotExist(err) {
				t.Fatalf("a refused install wrote the root: %v", err)
			}
		})
	}

	// Named, they pass, and the receipt says by what.
	var res api.InstallResult
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "code", Grants: []string{"shell:execute:git"}}, nil, &res); st != http.StatusCreated {
		t.Fatalf("code with grant: %d %+v", st, res)
	}
	if g := f.installed("agents")["code"].Grants; len(g) != 1 || g[0].By != "grant" {
		t.Errorf("grants of code = %+v", g)
	}
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "wild", AllowExperimental: true}, nil, &res); st != http.StatusCreated {
		t.Fatalf("wild with allowExperimental: %d %+v", st, res)
	}
	if tier := f.installed("agents")["wild"].Tier; tier != "experimental" {
		t.Errorf("wild tier = %q", tier)
	}
	// "yes" is not a field of the API: it is refused, not ignored.
	var e errBody
	if st := f.do("POST", "/api/skills/install", []byte(`{"ref":"code","yes":true}`), nil, &e); st != http.StatusBadRequest || !strings.Contains(e.Error.Message, "yes") {
		t.Fatalf(`{"yes":true}: %d %+v`, st, e)
	}
}

// TestRemoveDependedUpon refuses to remove a skill another one needs.
func TestRemoveDependedUpon(t *testing.T) {
	f := newFixture(t, nil)
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "fix"}, nil, nil); st != http.StatusCreated {
		t.Fatalf("install: %d", st)
	}
	var e errBody
	if st := f.do("DELETE", "/api/skills/notes", nil, nil, &e); st != http.StatusConflict {
		t.Fatalf("remove notes: %d %+v", st, e)
	}
	if e.Error.ClassName != "conflict" || !reflect.DeepEqual(e.Error.Dependents, []string{"fix"}) || !strings.Contains(e.Error.Message, "needed by fix") {
		t.Fatalf("error = %+v", e.Error)
	}
	if _, ok := f.installed("agents")["notes"]; !ok {
		t.Fatal("notes was removed anyway")
	}
}

// TestRequestChecks covers what is refused before any work: token, Host,
// Origin, size, shape.
func TestRequestChecks(t *testing.T) {
	f := newFixture(t, nil)
	_, port, _ := strings.Cut(f.host, ":")
	good := api.InstallRequest{Ref: "notes", DryRun: true}
	huge := []byte(`{"ref":"notes","grants":["` + strings.Repeat("a", api.DefaultMaxBody) + `"]}`)
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		hdr    map[string]string
		status int
		code   string
	}{
		{"no token", "POST", "/api/skills/install", good, map[string]string{api.TokenHeader: ""}, 401, "trust"},
		{"wrong token", "POST", "/api/skills/install", good, map[string]string{api.TokenHeader: strings.Repeat("0", 32)}, 401, "trust"},
		{"no token on remove", "DELETE", "/api/skills/notes", nil, map[string]string{api.TokenHeader: ""}, 401, "trust"},
		{"wrong Origin", "POST", "/api/skills/install", good, map[string]string{"Origin": "http://evil.example"}, 403, "usage"},
		{"Origin on another port", "POST", "/api/skills/install", good, map[string]string{"Origin": "http://127.0.0.1:1"}, 403, "usage"},
		{"https Origin", "DELETE", "/api/skills/notes", nil, map[string]string{"Origin": "https://" + f.host}, 403, "usage"},
		{"null Origin", "POST", "/api/skills/install", good, map[string]string{"Origin": "null"}, 403, "usage"},
		{"cross-site fetch", "POST", "/api/skills/install", good, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "usage"},
		{"wrong Host (DNS rebinding)", "GET", "/api/skills", nil, map[string]string{"Host": "evil.example:" + port}, 403, "usage"},
		{"wrong Host on install", "POST", "/api/skills/install", good, map[string]string{"Host": "attacker.test"}, 403, "usage"},
		{"wrong Host on the panel", "GET", "/", nil, map[string]string{"Host": "rebind.example:" + port}, 403, "usage"},
		{"oversize body", "POST", "/api/skills/install", huge, nil, 413, "usage"},
		{"not JSON", "POST", "/api/skills/install", []byte("ref=notes"), nil, 400, "usage"},
		{"form content type", "POST", "/api/skills/install", good, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "usage"},
		{"no ref", "POST", "/api/skills/install", api.InstallRequest{}, nil, 400, "usage"},
		{"bad ref", "POST", "/api/skills/install", api.InstallRequest{Ref: "notes@^^1"}, nil, 400, "usage"},
		{"digest ref", "POST", "/api/skills/install", api.InstallRequest{Ref: "notes@sha256:" + strings.Repeat("a", 64)}, nil, 400, "usage"},
		// The API installs from registries only: the engine's git and
		// local-directory references are refused before any work.
		{"git ref", "POST", "/api/skills/install", api.InstallRequest{Ref: "git+file:///nonexistent/repo"}, nil, 400, "usage"},
		{"github ref", "POST", "/api/skills/install", api.InstallRequest{Ref: "github:acme/skills"}, nil, 400, "usage"},
		{"local directory", "POST", "/api/skills/install", api.InstallRequest{Ref: "./notes"}, nil, 400, "usage"},
		{"bad grant", "POST", "/api/skills/install", api.InstallRequest{Ref: "notes", Grants: []string{"shell"}}, nil, 400, "usage"},
		{"bad host", "POST", "/api/skills/install", api.InstallRequest{Ref: "notes", Host: "vim"}, nil, 400, "usage"},
		{"bad scope", "GET", "/api/skills?scope=galaxy", nil, nil, 400, "usage"},
		{"unknown skill", "POST", "/api/skills/install", api.InstallRequest{Ref: "no-such-skill"}, nil, 422, "resolution"},
		{"no such version", "POST", "/api/skills/install", api.InstallRequest{Ref: "notes@^7"}, nil, 422, "resolution"},
		{"registry down", "POST", "/api/skills/install", api.InstallRequest{Ref: "127.0.0.1:1/skills/notes"}, nil, 502, "registry"},
		{"unknown endpoint", "GET", "/api/nothing", nil, nil, 404, "not_found"},
		{"search not built", "GET", "/api/skills/search?q=notes", nil, nil, 501, "internal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e errBody
			st := f.do(c.method, c.path, c.body, c.hdr, &e)
			if st != c.status || e.Error.ClassName != c.code || e.Error.Status != c.status || e.Error.Message == "" || e.Error.Code < 1 {
				t.Fatalf("%d %+v, want %d %s", st, e.Error, c.status, c.code)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.home, ".agents")); !os.IsNotExist(err) {
		t.Errorf("refused requests wrote to HOME: %v", err)
	}

	// The server's own names pass: loopback aliases of the same port, and
	// an Origin that is the server's.
	for _, h := range []string{f.host, "localhost:" + port, "[::1]:" + port} {
		var l listBody
		if st := f.do("GET", "/api/skills", nil, map[string]string{"Host": h, "Origin": "http://" + h}, &l); st != http.StatusOK {
			t.Errorf("Host %s: %d", h, st)
		}
	}
	if st := f.do("POST", "/api/skills/install", good, map[string]string{"Origin": "http://" + f.host, "Sec-Fetch-Site": "same-origin"}, nil); st != http.StatusOK {
		t.Errorf("same-origin dry run: %d", st)
	}
}

// TestPanel serves the embedded panel with headers that keep it from
// being framed, sniffed or leaking the token in a Referer.
func TestPanel(t *testing.T) {
	f := newFixture(t, nil)
	for _, p := range []string{"/", "/panel.js", "/panel.css"} {
		res, err := http.Get(f.url + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Fatalf("%s: %d", p, res.StatusCode)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			res.Header.Get("Referrer-Policy") != "no-referrer" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s headers: %v", p, res.Header)
		}
		if p == "/" && !bytes.Contains(body, []byte(`aria-live`)) {
			t.Error("the panel has no live region")
		}
	}
	if !strings.HasPrefix(f.srv.URL(), "http://"+f.host+"/?token=") {
		t.Errorf("URL() = %s", f.srv.URL())
	}
}

// TestSearch calls the configured search function.
func TestSearch(t *testing.T) {
	f := newFixture(t, func(c *api.Config) {
		c.Search = func(_ context.Context, q string) (any, error) {
			return []map[string]string{{"name": q}}, nil
		}
	})
	var out struct {
		Query   string              `json:"query"`
		Results []map[string]string `json:"results"`
	}
	if st := f.do("GET", "/api/skills/search?q=notes", nil, nil, &out); st != http.StatusOK || len(out.Results) != 1 || out.Results[0]["name"] != "notes" {
		t.Fatalf("%d %+v", st, out)
	}
	var e errBody
	if st := f.do("GET", "/api/skills/search", nil, nil, &e); st != http.StatusBadRequest {
		t.Fatalf("empty query: %d", st)
	}
}

// TestConcurrentInstallsOneRoot runs installs into one root at once: the
// install lock serialises them and every one succeeds.
func TestConcurrentInstallsOneRoot(t *testing.T) {
	f := newFixture(t, nil)
	refs := []string{"notes", "fix", "code", "wild"}
	var wg sync.WaitGroup
	status := make([]int, len(refs))
	for i, ref := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := api.InstallRequest{Ref: ref, Grants: []string{"shell:execute:git"}, AllowExperimental: true}
			status[i] = f.do("POST", "/api/skills/install", req, nil, nil)
		}()
	}
	wg.Wait()
	for i, st := range status {
		if st != http.StatusCreated && st != http.StatusOK {
			t.Errorf("%s: %d", refs[i], st)
		}
	}
	got := f.installed("agents")
	for _, n := range refs {
		if _, ok := got[n]; !ok {
			t.Errorf("%s missing after concurrent installs: %v", n, got)
		}
	}
}

// TestNew rejects configurations that would be unsafe or unusable.
func TestNew(t *testing.T) {
	c := NewClient(t, t.TempDir())
	for _, cfg := range []api.Config{
		{Client: c, Token: "short", Addr: "127.0.0.1:7878"},
		{Client: c, Token: strings.Repeat("a", 32), Addr: "127.0.0.1:0"},
		{Token: strings.Repeat("a", 32), Addr: "127.0.0.1:7878"},
		{Client: c, Token: strings.Repeat("a", 32), Addr: "127.0.0.1:7878", From: "oci-layout:"},
	} {
		if _, err := api.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	for _, from := range []string{"", "embedded", "oci-layout:dir", "ghcr.io/acme/skills"} {
		if _, err := api.New(api.Config{Client: c, Token: strings.Repeat("a", 32), Addr: "127.0.0.1:7878", From: from}); err != nil {
			t.Errorf("New with From %q: %v", from, err)
		}
	}
	if !api.IsLoopback("127.0.0.1:1") || !api.IsLoopback("[::1]:1") || !api.IsLoopback("localhost:1") || api.IsLoopback("0.0.0.0:1") || api.IsLoopback("192.168.1.2:1") {
		t.Error("IsLoopback")
	}
}

// TestSeesNewVersions publishes a version from another process (another
// Client on the same embedded registry) while the server runs: the next
// install request sees it, though the server had already listed that
// skill's versions.
func TestSeesNewVersions(t *testing.T) {
	var client *registry.Client
	f := newFixture(t, func(c *api.Config) { client = c.Client })
	var res api.InstallResult
	req := api.InstallRequest{Ref: "wild@>=0.1", Host: "claude", AllowExperimental: true}
	if st := f.do("POST", "/api/skills/install", req, nil, &res); st != http.StatusCreated || len(res.Skills) != 1 || res.Skills[0].Version != "0.1.0" {
		t.Fatalf("install: %d %+v", st, res)
	}
	other := NewClient(t, strings.TrimPrefix(client.Embedded().String(), source.LayoutPrefix))
	Publish(t, other, other.Embedded(), nil, []testSkill{{name: "wild", version: "0.2.0", unsigned: true}})
	// Into another root (the first keeps what it has, as install does).
	req.Host = "codex"
	if st := f.do("POST", "/api/skills/install", req, nil, &res); st != http.StatusCreated || len(res.Skills) != 1 || res.Skills[0].Version != "0.2.0" {
		t.Fatalf("install after 0.2.0 was published elsewhere: %d %+v", st, res)
	}
}

// TestListShowsAdvisories: once an advisory the policy obeys names an
// installed skill, GET /api/skills marks that copy with it (the panel
// shows it), and a copy placed by hand with the same files is marked by
// its tree hash; the others are unmarked.
func TestListShowsAdvisories(t *testing.T) {
	f := newFixture(t, nil)
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "notes@^1", Host: "claude"}, nil, nil); st != http.StatusCreated {
		t.Fatalf("install: %d", st)
	}
	if st := f.do("POST", "/api/skills/install", api.InstallRequest{Ref: "code@^1", Host: "claude", Grants: []string{"shell:execute:git"}}, nil, nil); st != http.StatusCreated {
		t.Fatalf("install: %d", st)
	}
	root := filepath.Join(f.home, ".claude", "skills")
	sum, err := archive.TreeHashInstalled(context.Background(), filepath.Join(root, "notes"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "notes-copy"), os.DirFS(filepath.Join(root, "notes"))); err != nil {
		t.Fatal(err)
	}
	feed := `{"schema": "skillpm.advisories/v1", "issued": "2026-01-01T00:00:00Z", "expires": "2099-01-01T00:00:00Z", "advisories": [
  {"id": "MAL-2026-0009", "modified": "2026-01-01T00:00:00Z", "summary": "steals tokens",
   "affected": [{"package": {"ecosystem": "skillpm", "name": "notes"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}]}],
                 "database_specific": {"digests": ["` + sum.TreeHash + `"]}}],
   "database_specific": {"kind": "malicious", "severity": "high"}}]}`
	e, err := engine.Open(context.Background(), engine.Options{Client: f.client, Policy: f.cfg.Policy, Trust: f.cfg.Trust, Env: f.cfg.Env})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.PublishAdvisories(context.Background(), engine.PublishAdvisoriesRequest{File: "feed.json", Data: []byte(feed), Sign: sign.SignOptions{Key: f.key.Key}}); err != nil {
		t.Fatal(err)
	}
	got := f.installed("claude")
	for _, name := range []string{"notes", "notes-copy"} {
		as := got[name].Advisories
		if len(as) != 1 || as[0].ID != "MAL-2026-0009" || as[0].Kind != "malicious" || !as[0].Refuses {
			t.Errorf("%s: advisories %+v, want MAL-2026-0009 (malicious)", name, as)
		}
	}
	if as := got["code"].Advisories; len(as) != 0 {
		t.Errorf("code: advisories %+v, want none", as)
	}
}
