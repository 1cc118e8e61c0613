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
	"github.com/skillpm/skillpm/api"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
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
	// A long namespace, so that a source wraps in a narrow window.
	ns := reg.Host + "/team-platform-engineering/skills"

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
		{name: "notes-lite", version: "1.0.0"},
		{name: "repo-helper", version: "1.0.0", requires: map[string]string{"repo-tools": "^1"}},
	})
	policy, trust := Trust(t, kp)
	token, err := api.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ts := httptest.NewUnstartedServer(nil)
	apiClient := NewClient(t, filepath.Join(t.TempDir(), "registry"))
	srv, err := api.New(api.Config{Client: apiClient, Policy: policy, Trust: trust,
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
	// Consent boxes belong to the check that asked: ticked for
	// repo-tools, they are gone when another skill is checked (they would
	// grant it what nobody was asked about).
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL()),
		chromedp.WaitVisible(`#no-skills`),
		chromedp.Focus(`#ref`),
		chromedp.SendKeys(`#ref`, ref),
		chromedp.SendKeys(`#ref`, kb.Enter),
		chromedp.WaitVisible(`#consent-items input[data-grant="shell:execute:git"]`),
		chromedp.SendKeys(`#consent-items input[data-grant="shell:execute:git"]`, " "),
		chromedp.SetValue(`#ref`, ns+"/notes-lite@^1"),
		chromedp.Focus(`#ref`),
		chromedp.SendKeys(`#ref`, kb.Enter),
		// The plan, or whatever stops it (a question, an error): a check
		// that lingering boxes spoil fails here rather than waiting.
		chromedp.WaitVisible(`#plan-body tr[data-plan="notes-lite"], #consent-question, #errors strong`),
	)
	if err != nil {
		t.Fatalf("checking two skills in turn in the panel: %v", err)
	}
	if got := run(ctx, t, chromedp.Text(`#plan`)); !strings.Contains(got, "notes-lite") || strings.Contains(got, "Allow these permissions") {
		t.Errorf("checking notes-lite after repo-tools shows %q", got)
	}
	boxes := run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll("#consent-items input").length`))
	if fieldset := run(ctx, t, chromedp.Evaluate[bool](`document.getElementById("consent").hidden`)); boxes != 0 || !fieldset {
		t.Errorf("after checking notes-lite, %d consent boxes of repo-tools linger (fieldset hidden: %v)", boxes, fieldset)
	}
	err = chromedp.Do(ctx,
		// Type the reference with the keyboard and press Enter: Check.
		chromedp.SetValue(`#ref`, ref),
		chromedp.Focus(`#ref`),
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
	// Words wrap whole: no name, version, permission or path segment is
	// split over two lines, the long source wraps at its separators, and
	// nothing sticks out of the page.
	type layoutCheck struct {
		Tokens      int      `json:"tokens"`
		Split       []string `json:"split"`
		SourceLines int      `json:"sourceLines"`
		Overflow    bool     `json:"overflow"`
	}
	layout := run(ctx, t, chromedp.Evaluate[layoutCheck](`(() => {
		const split = [];
		const tokens = document.querySelectorAll("#installed .token");
		for (const e of tokens) if (e.getClientRects().length > 1) split.push(e.textContent);
		const src = document.querySelector('`+row+` td.source');
		const lines = new Set([...src.querySelectorAll(".token")].map((e) => Math.round(e.getBoundingClientRect().top)));
		return { tokens: tokens.length, split, sourceLines: lines.size, overflow: document.documentElement.scrollWidth > window.innerWidth };
	})()`))
	if layout.Tokens == 0 || len(layout.Split) > 0 || layout.SourceLines < 2 || layout.Overflow {
		t.Errorf("narrow layout: %d tokens, split mid-token: %q, source on %d lines, overflows the page: %v", layout.Tokens, layout.Split, layout.SourceLines, layout.Overflow)
	}
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

	// The plan lists what the install changes: checking repo-helper,
	// which needs the repo-tools already installed, plans repo-helper
	// alone.
	helperRow := `tr[data-skill="repo-helper"][data-host="claude"]`
	err = chromedp.Do(ctx,
		chromedp.SetValue(`#ref`, ns+"/repo-helper@^1"),
		chromedp.Focus(`#ref`),
		chromedp.SendKeys(`#ref`, kb.Enter),
		chromedp.WaitVisible(`#plan-body tr[data-plan="repo-helper"]`),
	)
	if err != nil {
		t.Fatalf("checking repo-helper in the panel: %v", err)
	}
	planned := run(ctx, t, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#plan-body tr[data-plan]")].map((r) => r.dataset.plan)`))
	if len(planned) != 1 || planned[0] != "repo-helper" {
		t.Errorf("the plan for repo-helper lists %v; repo-tools is already installed", planned)
	}
	err = chromedp.Do(ctx,
		chromedp.WaitEnabled(`#confirm`),
		chromedp.Focus(`#confirm`),
		chromedp.SendKeys(`#confirm`, kb.Enter),
		chromedp.WaitVisible(helperRow),
	)
	if err != nil {
		t.Fatalf("installing repo-helper in the panel: %v", err)
	}
	// Removing repo-tools, which repo-helper needs, is refused: the
	// refusal is shown in repo-tools' row, where the user is, not in the
	// banner at the top.
	err = chromedp.Do(ctx,
		chromedp.Focus(row+` button.danger`),
		chromedp.SendKeys(row+` button.danger`, kb.Enter),
		chromedp.WaitVisible(row+` .confirm-yes`),
		chromedp.SendKeys(row+` .confirm-yes`, kb.Enter),
		chromedp.WaitVisible(row+` .row-error:not(:empty), #errors strong`),
	)
	if err != nil {
		t.Fatalf("removing a skill another needs in the panel: %v", err)
	}
	rowErr := run(ctx, t, chromedp.Text(row+` .row-error`))
	banner := run(ctx, t, chromedp.Evaluate[int](`document.getElementById("errors").children.length`))
	if !strings.Contains(rowErr, "needed by repo-helper") || banner != 0 {
		t.Errorf("refused remove: row says %q, banner has %d children", rowErr, banner)
	}
	refused := run(ctx, t, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, "panel-remove-refused.png"), refused, 0o644); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Focus(helperRow+` button.danger`),
		chromedp.SendKeys(helperRow+` button.danger`, kb.Enter),
		chromedp.WaitVisible(helperRow+` .confirm-yes`),
		chromedp.SendKeys(helperRow+` .confirm-yes`, kb.Enter),
		chromedp.WaitNotPresent(helperRow),
	)
	if err != nil {
		t.Fatalf("removing repo-helper in the panel: %v", err)
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

	// An advisory the policy obeys, in the feed of the panel's source,
	// names the installed repo-tools: its row says so.
	feed := `{"schema": "skillpm.advisories/v1", "issued": "2026-01-01T00:00:00Z", "expires": "2099-01-01T00:00:00Z", "advisories": [
  {"id": "GHSA-2026-0001", "modified": "2026-01-01T00:00:00Z", "summary": "runs npm scripts it was not asked to",
   "affected": [{"package": {"ecosystem": "skillpm", "name": "` + ns + `/repo-tools"}, "versions": ["1.5.0"]}],
   "database_specific": {"kind": "vulnerability", "severity": "moderate"}}]}`
	pub, err := engine.Open(context.Background(), engine.Options{Client: apiClient, Policy: policy, Trust: trust, Env: install.Env{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pub.PublishAdvisories(context.Background(), engine.PublishAdvisoriesRequest{File: "feed.json", Data: []byte(feed), Sign: sign.SignOptions{Key: kp.Key}}); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL()),
		chromedp.WaitVisible(row+` .advisory[data-advisory="GHSA-2026-0001"]`),
	)
	if err != nil {
		t.Fatalf("seeing the advisory in the panel: %v", err)
	}
	if got := run(ctx, t, chromedp.Text(row+` .advisory`)); !strings.Contains(got, "advisory GHSA-2026-0001 (vulnerability, moderate): runs npm scripts") {
		t.Errorf("advisory in the row = %q", got)
	}
	if n := run(ctx, t, chromedp.Evaluate[int](`document.querySelectorAll(".advisory").length`)); n != 1 {
		t.Errorf("%d advisories shown, want 1 (repo-tools only)", n)
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
