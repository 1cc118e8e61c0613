package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/registrytest"
)

// skillpmRun runs the CLI in-process in dir and fails t on a non-zero exit.
func skillpmRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("skillpm %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String()
}

// treeOf maps every file under dir (receipts left out: they name the
// source) to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(rel, ".skillpm") {
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBundleOfflineInstall publishes signed skills with dependencies to a
// real registry, installs them from it, bundles them, stops the registry,
// and installs from the bundle: the same files, versions, digests and
// tiers.
func TestBundleOfflineInstall(t *testing.T) {
	work := t.TempDir()
	for k, v := range map[string]string{"HOME": filepath.Join(work, "home"), "XDG_CONFIG_HOME": filepath.Join(work, "config"),
		"XDG_DATA_HOME": filepath.Join(work, "data"), "XDG_CACHE_HOME": filepath.Join(work, "cache"), "XDG_STATE_HOME": filepath.Join(work, "state"), "SKILLPM_PASSWORD": "", "SOURCE_DATE_EPOCH": ""} {
		t.Setenv(k, v)
	}
	testdata, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "asf"))
	skillpmRun(t, work, "keygen", "--output-prefix", "publisher", "--no-passphrase")
	policy := "version: 1\npolicies:\n  - name: publishers\n    scopes: [\"*\"]\n    tier: community\n    identities:\n      - key: publisher.pub\n"
	if err := os.WriteFile(filepath.Join(work, "policy.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	online, offline, bundle := filepath.Join(work, "online"), filepath.Join(work, "offline"), filepath.Join(work, "bundle")
	install := []string{"install", "fix@^1", "--policy", "policy.yaml", "--grant", "shell:execute", "--grant", "code:shell:execute", "--output", "json"}
	var lockOnline string
	t.Run("online", func(t *testing.T) {
		reg := registrytest.Start(t, registrytest.Options{})
		ns := reg.Host + "/skills"
		for _, s := range []string{"code", "diagnosis", "fix"} {
			skillpmRun(t, work, "publish", filepath.Join(testdata, s), "--no-vcs", "--registry", ns, "--plain-http", "--sign", "--key", "publisher.key")
		}
		lockOnline = skillpmRun(t, work, append(install, "--registry", ns, "--plain-http", "--root", online)...)
		out := skillpmRun(t, work, "bundle", "fix@^1", "--registry", ns, "--plain-http", "--output-dir", bundle)
		for _, s := range []string{"code", "diagnosis", "fix"} {
			if !strings.Contains(out, s+" ") {
				t.Errorf("bundle output lacks %s:\n%s", s, out)
			}
		}
	})
	// The registry is stopped; the cache is emptied too.
	if err := os.RemoveAll(filepath.Join(work, "cache")); err != nil {
		t.Fatal(err)
	}
	lockOffline := skillpmRun(t, work, append(install, "--registry", "oci-layout:"+bundle, "--root", offline)...)

	type entry struct{ Name, Version, Digest, Tree, Tier string }
	read := func(s string) map[string]entry {
		var doc struct{ Skills []entry }
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
		m := map[string]entry{}
		for _, e := range doc.Skills {
			m[e.Name] = e
		}
		return m
	}
	a, b := read(lockOnline), read(lockOffline)
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("online %v, offline %v", a, b)
	}
	for n, e := range a {
		if b[n] != e || e.Tier != "community" {
			t.Errorf("%s: online %+v, offline %+v", n, e, b[n])
		}
	}
	ta, tb := treeOf(t, online), treeOf(t, offline)
	if len(ta) == 0 || len(ta) != len(tb) {
		t.Fatalf("online root has %d files, offline %d", len(ta), len(tb))
	}
	for p, data := range ta {
		if tb[p] != data {
			t.Errorf("%s differs between the online and the offline root", p)
		}
	}
	// The bundle holds exactly the three skills.
	des, _ := os.ReadDir(bundle)
	var names []string
	for _, d := range des {
		if d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			names = append(names, d.Name())
		}
	}
	if strings.Join(names, ",") != "code,diagnosis,fix" {
		t.Errorf("bundle holds %v", names)
	}
}
