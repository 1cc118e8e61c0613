package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/install/api"
)

// TestServe starts `skillpm serve` on a free loopback port, reads the URL
// it prints, checks that reads work and that a write without the token
// is refused, then stops it as Ctrl-C would (its context ends).
func TestServe(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
		done <- code
	}()
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
	res, err := http.Get("http://" + u.Host + "/api/skills")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET /api/skills: %d", res.StatusCode)
	}
	res, err = http.Post("http://"+u.Host+"/api/skills/install", "application/json", strings.NewReader(`{"ref":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("install without %s: %d", api.TokenHeader, res.StatusCode)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
