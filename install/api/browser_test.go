//go:build integration

package api_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/api"
	"github.com/skillpm/skillpm/internal/registrytest"
	"github.com/skillpm/skillpm/sign"
)

// chromium returns Debian's headless chromium (or another Chrome on
// PATH); a missing browser fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	// .ci/run installs it; a test that needs it never passes without it.
	t.Fatal("chromium is not installed: apt-get update && apt-get install -y chromium")
	return ""
}

// artifactDir is where screenshots go: $TEST_ARTIFACTS, else
// testdata/artifacts (git-ignored).
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPanelInBrowser drives the panel in headless chromium with the
// keyboard: it lists nothing, installs a signed skill from a real
// distribution registry (ticking the grant the plan asks for), sees it
// appear with its community tier badge, and removes it. Screenshots of a
// wide and a narrow window are saved as test artifacts.
func TestPanelInBrowser(t *testing.T) {
	browser := chromium(t)
	reg := registrytest.Start(t, registrytest.Options{})
	ns := reg.Host + "/skills"

	kp, err := sign.GenerateKey("", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(t, filepath.Join(t.TempDir(), "registry"))
	src, err := c.Remote(ns)
	if err != nil {
		t.Fatal(err)
	}
	Publish(t, c, src, kp.Key, []testSkill{
		{name: "repo-tools", version: "1.4.0", permissions: []string{"shell:execute:git", "filesystem:read"}},
	})
	policy, trust := Trust(t, kp)
	token, err := api.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ts := httptest.NewUnstartedServer(nil)
	srv, err := api.New(api.Config{Client: NewClient(t, filepath.Join(t.TempDir(), "registry")), Policy: policy, Trust: trust,
		Token: token, Addr: ts.Listener.Addr().String(), Env: install.Env{Home: home, Cwd: t.TempDir()}, Host: install.HostClaude})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(ts.Close)

	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 900))
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancel()
	// A bound that catches a page that never settles, not a slow machine.
	ctx, cancel := context.WithTimeout(bctx, 10*time.Minute)
	defer cancel()

	ref := ns + "/repo-tools@^1"
	row := `tr[data-skill="repo-tools"][data-host="claude"]`
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL()),
		chromedp.WaitVisible(`#no-skills`),
		// Type the reference with the keyboard and press Enter: Check.
		chromedp.Focus(`#ref`),
		chromedp.SendKeys(`#ref`, ref),
		chromedp.SendKeys(`#ref`, kb.Enter),
		// The plan asks for the dangerous permission; tick it with Space.
		chromedp.WaitVisible(`#consent-items input[data-grant="shell:execute:git"]`),
	)
	if err != nil {
		t.Fatalf("checking in the panel: %v", err)
	}
	// Consent is a question naming the skill, its tier and the
	// permission, not an error.
	question := run(ctx, t, chromedp.Text(`#consent-question`))
	errorsShown := run(ctx, t, chromedp.Evaluate[int](`document.getElementById("errors").children.length`))
	if !strings.Contains(question, "repo-tools@1.4.0 (community, signed by key sha256:") || !strings.Contains(question, ") asks for shell:execute:git") || errorsShown != 0 {
		t.Errorf("consent question = %q with %d errors shown", question, errorsShown)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`#consent-items input[data-grant="shell:execute:git"]`, " "),
		chromedp.Focus(`#recheck`),
		chromedp.SendKeys(`#recheck`, kb.Enter),
		chromedp.WaitEnabled(`#confirm`),
	)
	if err != nil {
		t.Fatalf("checking in the panel: %v", err)
	}
	// The plan, with its tier and the grant, is shown before confirming.
	plan := run(ctx, t, chromedp.Text(`#plan-body`))
	consent := run(ctx, t, chromedp.FullScreenshot(100))
	if !strings.Contains(plan, "community") || !strings.Contains(plan, "shell:execute:git") {
		t.Errorf("plan shown = %q", plan)
	}
	err = chromedp.Do(ctx,
		// Confirm: the install streams its stages, then the list shows it.
		chromedp.Focus(`#confirm`),
		chromedp.SendKeys(`#confirm`, kb.Enter),
		chromedp.WaitVisible(row+` .badge[data-tier="community"]`),
	)
	if err != nil {
		t.Fatalf("installing in the panel: %v", err)
	}
	tokenLeft := run(ctx, t, chromedp.Evaluate[string](`location.search`))
	tierText := run(ctx, t, chromedp.Text(row+` .badge`))
	progress := run(ctx, t, chromedp.Text(`#progress`))
	wide := run(ctx, t, chromedp.FullScreenshot(100))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(380, 900)); err != nil {
		t.Fatal(err)
	}
	narrow := run(ctx, t, chromedp.FullScreenshot(100))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 900)); err != nil {
		t.Fatal(err)
	}
	dir := artifactDir(t)
	for name, png := range map[string][]byte{"panel-consent.png": consent, "panel-installed.png": wide, "panel-installed-narrow.png": narrow} {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	if strings.Contains(tokenLeft, "token") {
		t.Errorf("the token stayed in the address bar: %q", tokenLeft)
	}
	if !strings.Contains(tierText, "community") {
		t.Errorf("tier badge = %q", tierText)
	}
	for _, stage := range []string{"resolving", "fetching repo-tools@1.4.0", "verifying", "committing", "done"} {
		if !strings.Contains(progress, stage) {
			t.Errorf("progress %q has no %q", progress, stage)
		}
	}
	receipts, err := os.ReadFile(filepath.Join(home, ".claude", "skills", ".skillpm", "installed.json"))
	if err != nil || !strings.Contains(string(receipts), `"by": "grant"`) {
		t.Fatalf("receipt: %v\n%s", err, receipts)
	}

	// A newer version within ^1 is published, asking for one more
	// dangerous permission: the list marks the update, its Update button
	// asks for consent in the row, and "Allow and update" installs it
	// (install.Update, as the CLI).
	Publish(t, c, src, kp.Key, []testSkill{
		{name: "repo-tools", version: "1.5.0", permissions: []string{"shell:execute:git", "shell:execute:npm"}},
	})
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL()),
		chromedp.WaitVisible(row+` .update-available`),
	)
	if err != nil {
		t.Fatalf("seeing the update in the panel: %v", err)
	}
	if marker := run(ctx, t, chromedp.Text(row+` .update-available`)); !strings.Contains(marker, "update available: 1.5.0") {
		t.Errorf("update marker = %q", marker)
	}
	err = chromedp.Do(ctx,
		chromedp.Focus(row+` button.update`),
		chromedp.SendKeys(row+` button.update`, kb.Enter),
		chromedp.WaitVisible(row+` .confirm-update`),
	)
	if err != nil {
		t.Fatalf("updating in the panel: %v", err)
	}
	ask := run(ctx, t, chromedp.Text(row+` .update-question`))
	shown := run(ctx, t, chromedp.Evaluate[int](`document.getElementById("errors").children.length`))
	if !strings.Contains(ask, "repo-tools@1.5.0 (community, signed by key sha256:") || !strings.Contains(ask, "asks for shell:execute:npm") || shown != 0 {
		t.Errorf("update consent question = %q with %d errors shown", ask, shown)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(row+` .confirm-update .confirm-yes`, kb.Enter),
		chromedp.WaitNotPresent(row+` .update-available`),
	)
	if err != nil {
		t.Fatalf("allowing the update in the panel: %v", err)
	}
	if status := run(ctx, t, chromedp.Text(`#status`)); !strings.Contains(status, "Updated repo-tools 1.4.0 → 1.5.0") {
		t.Errorf("status after update = %q", status)
	}
	if b, err := os.ReadFile(filepath.Join(home, ".claude", "skills", "repo-tools", "SKILL.md")); err != nil || !strings.Contains(string(b), "1.5.0") {
		t.Errorf("repo-tools not updated: %v", err)
	}

	// Remove it with the keyboard: the panel asks first, and "Keep"
	// (focused) keeps it.
	err = chromedp.Do(ctx,
		chromedp.Focus(row+` button.danger`),
		chromedp.SendKeys(row+` button.danger`, kb.Enter),
		chromedp.WaitVisible(row+` .confirm-remove`),
		chromedp.SendKeys(row+` .confirm-no`, kb.Enter),
		chromedp.WaitVisible(row+` button.danger`),
	)
	if err != nil {
		t.Fatalf("asking before removing in the panel: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "skills", "repo-tools")); err != nil {
		t.Fatalf("repo-tools was removed before the removal was confirmed: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.Focus(row+` button.danger`),
		chromedp.SendKeys(row+` button.danger`, kb.Enter),
		chromedp.WaitVisible(row+` .confirm-yes`),
		chromedp.Focus(row+` .confirm-yes`),
		chromedp.SendKeys(row+` .confirm-yes`, kb.Enter),
		chromedp.WaitVisible(`#no-skills`),
	)
	if err != nil {
		t.Fatalf("removing in the panel: %v", err)
	}
	status := run(ctx, t, chromedp.Text(`#status`))
	if !strings.Contains(status, "Removed repo-tools") {
		t.Errorf("status after remove = %q", status)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "skills", "repo-tools")); !os.IsNotExist(err) {
		t.Errorf("repo-tools still installed: %v", err)
	}
}

// run runs one browser action that returns a value, failing the test on
// error.
func run[T any](ctx context.Context, t *testing.T, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
