package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/internal/registrytest"
)

// TestServe starts `skillpm serve` on a free loopback port, reads the URL
// it prints, checks that reads work and that a write without the token
// is refused, then stops it as Ctrl-C would (its context ends).
func TestServe(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	host, _, stop := startServe(t)
	res, err := http.Get("http://" + host + "/api/skills")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/skills: %d", res.StatusCode)
	}
	res, err = http.Post("http://"+host+"/api/skills/install", "application/json", strings.NewReader(`{"ref":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("install without %s: %d", api.TokenHeader, res.StatusCode)
	}
	stop()
}

// startServe runs `skillpm serve` on a free loopback port in the working
// directory and returns its address and token; stop ends it as Ctrl-C
// would and fails the test unless it exits 0.
func startServe(t *testing.T) (host, token string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr registrytest.SyncBuffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
		done <- code
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve: exit %d: %s", code, stderr.String())
		}
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	raw, ok := strings.CutPrefix(strings.TrimSpace(line), "skillpm serve: open ")
	if !ok {
		t.Fatalf("first line = %q", line)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Query().Get("token") == "" || !strings.HasPrefix(u.Host, "127.0.0.1:") {
		t.Fatalf("URL %q: %v", raw, err)
	}
	return u.Host, u.Query().Get("token"), stop
}

// writeTestFile writes data to path, making its directory.
func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// servedNotes gives a test its own home and XDG directories, publishes
// notes at version (described by desc, claiming no tier) to the embedded
// registry signed by a new key, and writes team-policy.yaml trusting
// that key for embedded/* at community. It returns the work directory
// and the policy file.
func servedNotes(t *testing.T, desc, version string) (work, policy string) {
	t.Helper()
	work = t.TempDir()
	for k, v := range map[string]string{"HOME": filepath.Join(work, "home"), "XDG_CONFIG_HOME": filepath.Join(work, "config"),
		"XDG_DATA_HOME": filepath.Join(work, "data"), "XDG_CACHE_HOME": filepath.Join(work, "cache"), "XDG_STATE_HOME": filepath.Join(work, "state"), "SKILLPM_PASSWORD": "", "SKILLPM_CONFIG": ""} {
		t.Setenv(k, v)
	}
	writeTestFile(t, filepath.Join(work, "src", "notes", "SKILL.md"), "---\nname: notes\ndescription: "+desc+" Use in tests.\nversion: "+version+"\n---\nBody.\n")
	skillpmRun(t, work, "keygen", "--output-prefix", "publisher", "--no-passphrase")
	skillpmRun(t, work, "publish", filepath.Join(work, "src", "notes"), "--no-vcs", "--sign", "--key", "publisher.key", "-q")
	policy = filepath.Join(work, "team-policy.yaml")
	writeTestFile(t, policy, "version: 1\npolicies:\n  - name: team\n    scopes: [\"embedded/*\"]\n    tier: community\n    identities:\n      - key: "+filepath.Join(work, "publisher.pub")+"\n")
	return work, policy
}

// TestServeReadsProjectPolicy checks that the API decides tiers with the
// policy of the project serve runs in, as every command run there does:
// a skill signed by a key only that policy trusts is experimental (and
// refused) until skills.yaml names the policy and this machine approves
// it (skillpm policy approve), community from the next request on,
// without a restart; and config.yaml's policy: holds where the project
// names none.
func TestServeReadsProjectPolicy(t *testing.T) {
	// notes claims no tier: the policy alone decides.
	work, policy := servedNotes(t, "Takes notes.", "1.0.0")
	proj := filepath.Join(work, "proj")
	writeTestFile(t, filepath.Join(proj, "skills.yaml"), "skills: {}\n")
	t.Chdir(proj)

	// install asks for a dry run of notes; it returns the status and the
	// tier the plan gives it (the error's message when refused).
	install := func(host, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", "http://"+host+"/api/skills/install", strings.NewReader(`{"ref":"notes","dry_run":true}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(api.TokenHeader, token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Skills []struct {
				Name string `json:"name"`
				Tier string `json:"tier"`
			} `json:"skills"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatalf("install: status %d, body: %v", res.StatusCode, err)
		}
		if body.Error != nil {
			return res.StatusCode, body.Error.Message
		}
		if len(body.Skills) != 1 || body.Skills[0].Name != "notes" {
			t.Fatalf("install: status %d, skills %+v", res.StatusCode, body.Skills)
		}
		return res.StatusCode, body.Skills[0].Tier
	}

	host, token, stop := startServe(t)
	if code, got := install(host, token); code == http.StatusOK || !strings.Contains(got, "experimental") {
		t.Fatalf("no policy trusts the key: status %d, %q; want a refusal of an experimental skill", code, got)
	}
	// A project's policy counts once this machine approves it: until
	// then the server, like every command, sets it aside.
	writeTestFile(t, filepath.Join(proj, "skills.yaml"), "policy: ../team-policy.yaml\nskills: {}\n")
	if code, got := install(host, token); code == http.StatusOK || !strings.Contains(got, "experimental") {
		t.Fatalf("skills.yaml names a policy this machine has not approved: status %d, %q; want a refusal of an experimental skill", code, got)
	}
	skillpmRun(t, proj, "policy", "approve", "--yes")
	if code, got := install(host, token); code != http.StatusOK || got != "community" {
		t.Fatalf("skills.yaml names the policy: status %d, %q; want 200 and community (the API ignores the project's policy)", code, got)
	}
	stop()

	writeTestFile(t, filepath.Join(proj, "skills.yaml"), "skills: {}\n")
	writeTestFile(t, filepath.Join(work, "config", "skillpm", "config.yaml"), "policy: "+policy+"\n")
	host, token, stop = startServe(t)
	if code, got := install(host, token); code != http.StatusOK || got != "community" {
		t.Fatalf("config.yaml names the policy: status %d, %q; want 200 and community (the API ignores config.yaml's policy)", code, got)
	}
	stop()
}

// TestServeSearch checks the panel's search through serve: a skill
// published signed into the embedded registry is found by a word of its
// description, with the tier config.yaml's policy gives its key (verified,
// not the tier it claims), its version and the reference that installs
// it; a query nothing matches finds nothing.
func TestServeSearch(t *testing.T) {
	work, policy := servedNotes(t, "Takes meeting minutes.", "1.2.0")
	skillpmRun(t, work, "index", "build", "-q")
	writeTestFile(t, filepath.Join(work, "config", "skillpm", "config.yaml"), "policy: "+policy+"\n")
	proj := filepath.Join(work, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)

	type hit struct {
		Name, Version, Ref, Tier string
	}
	search := func(host, q string) []hit {
		t.Helper()
		res, err := http.Get("http://" + host + "/api/skills/search?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Schema  string `json:"schema"`
			Results []hit  `json:"results"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK || body.Schema != api.SchemaSearch {
			t.Fatalf("search %q: status %d, schema %q, %v", q, res.StatusCode, body.Schema, err)
		}
		return body.Results
	}
	host, _, stop := startServe(t)
	if got, want := search(host, "minutes"), []hit{{"notes", "1.2.0", "notes@1.2.0", "community"}}; !slices.Equal(got, want) {
		t.Errorf("search minutes: %+v, want %+v", got, want)
	}
	if got := search(host, "zebra"); len(got) != 0 {
		t.Errorf("search zebra: %+v, want no hits", got)
	}
	stop()
}
