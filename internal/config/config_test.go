package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/install"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	for _, tc := range []struct {
		name, data string
		want       Config
		err        string // substring; "" means no error
	}{
		{name: "empty", data: "", want: Config{}},
		{name: "comments only", data: "# nothing yet\n", want: Config{}},
		{name: "remote", data: "registry: ghcr.io/acme/skills/\nhost: gaia\nplain-http: [registry.internal:5000, mirror.lan]\n",
			want: Config{Registry: "ghcr.io/acme/skills", Host: install.HostGaia, PlainHTTP: []string{"registry.internal:5000", "mirror.lan"}}},
		{name: "layout relative to the file", data: "registry: oci-layout:store\n",
			want: Config{Registry: "oci-layout:" + filepath.ToSlash(filepath.Join(dir, "store"))}},
		{name: "embedded", data: "registry: embedded\n", want: Config{}},
		{name: "unknown key", data: "host: claude\nregistery: x\n", err: "config.yaml:2:1: invalid configuration: unknown key \"registery\""},
		{name: "not a mapping", data: "- registry\n", err: "config.yaml:1:1: invalid configuration: the configuration is a mapping"},
		{name: "bad host", data: "host: vim\n", err: "config.yaml:1:7: invalid configuration: host: unknown host \"vim\""},
		{name: "bad registry", data: "registry: not a host\n", err: "config.yaml:1:11: invalid configuration: registry:"},
		{name: "plain-http with a path", data: "plain-http:\n  - host/ns\n", err: "config.yaml:2:5: invalid configuration: plain-http: \"host/ns\" is not a registry host"},
		{name: "wrong type", data: "plain-http: 3\n", err: "invalid configuration"},
		{name: "broken YAML", data: "host: [\n", err: "config.yaml: invalid configuration"},
		{name: "http-timeout", data: "http-timeout: 1m30s\n", want: Config{HTTPTimeout: 90 * time.Second}},
		{name: "http-timeout in seconds", data: "http-timeout: 5\n", want: Config{HTTPTimeout: 5 * time.Second}},
		{name: "bad http-timeout", data: "http-timeout: soon\n", err: "config.yaml:1:15: invalid configuration: http-timeout:"},
		{name: "zero http-timeout", data: "http-timeout: 0s\n", err: "must be more than zero"},
		{name: "mirrors", data: "mirrors:\n  ghcr.io:\n    - mirror.internal:5000\n    - cache.internal/ghcr\n",
			want: Config{Mirrors: map[string][]string{"ghcr.io": {"mirror.internal:5000", "cache.internal/ghcr"}}}},
		{name: "mirror not a registry", data: "mirrors:\n  ghcr.io: [oci-layout:dir]\n", err: "config.yaml:2:3: invalid configuration: mirrors: ghcr.io: \"oci-layout:dir\" is not a registry"},
		{name: "mirrors of a namespace", data: "mirrors:\n  ghcr.io/acme: [m.internal]\n", err: "mirrors: \"ghcr.io/acme\" is not a registry host"},
		{name: "mirrors not a mapping", data: "mirrors: [m.internal]\n", err: "invalid configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(path, []byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("Parse = %v, want an ErrInvalid containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.File = path
			if got.File != tc.want.File || got.Registry != tc.want.Registry || got.Host != tc.want.Host || strings.Join(got.PlainHTTP, ",") != strings.Join(tc.want.PlainHTTP, ",") || got.HTTPTimeout != tc.want.HTTPTimeout || fmt.Sprint(got.Mirrors) != fmt.Sprint(tc.want.Mirrors) {
				t.Errorf("Parse = %+v, want %+v", *got, tc.want)
			}
		})
	}
}

// TestLoad checks where the file is looked for: the path given, else
// $SKILLPM_CONFIG, else the XDG default; only the default may be missing.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("xdg/skillpm/config.yaml", "host: claude\n")
	env := write("env.yaml", "host: codex\n")
	flag := write("flag.yaml", "host: gaia\n")
	getenv := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, tc := range []struct {
		name string
		path string
		vars map[string]string
		want install.HostID
		err  bool
	}{
		{"flag wins", flag, map[string]string{EnvVar: env, "XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}, install.HostGaia, false},
		{"env next", "", map[string]string{EnvVar: env, "XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}, install.HostCodex, false},
		{"xdg default", "", map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}, install.HostClaude, false},
		{"home default missing", "", map[string]string{"HOME": filepath.Join(dir, "nohome")}, "", false},
		{"nothing set", "", map[string]string{}, "", false},
		{"missing flag file", filepath.Join(dir, "nope.yaml"), nil, "", true},
		{"missing env file", "", map[string]string{EnvVar: filepath.Join(dir, "nope.yaml")}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(tc.path, getenv(tc.vars))
			if (err != nil) != tc.err {
				t.Fatalf("Load = %v, want error %v", err, tc.err)
			}
			if err == nil && cfg.Host != tc.want {
				t.Errorf("host %q, want %q", cfg.Host, tc.want)
			}
		})
	}
	if got := DefaultPath(getenv(map[string]string{"HOME": "/h"})); got != filepath.Join("/h", ".config", "skillpm", "config.yaml") {
		t.Errorf("DefaultPath = %s", got)
	}
}

// TestTimeoutEnv: SKILLPM_HTTP_TIMEOUT wins over the file's http-timeout,
// and a bad value names the variable.
func TestTimeoutEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("http-timeout: 30s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  string
		want time.Duration
		err  string
	}{
		{"", 30 * time.Second, ""},
		{"2.5", 2500 * time.Millisecond, ""},
		{"1m", time.Minute, ""},
		{"-3", 0, "SKILLPM_HTTP_TIMEOUT: "},
	} {
		cfg, err := Load(p, func(k string) string {
			if k == TimeoutEnvVar {
				return tc.env
			}
			return ""
		})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("env %q: %v, want an error with %q", tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || cfg.HTTPTimeout != tc.want {
			t.Errorf("env %q: %v, %v, want %v", tc.env, cfg, err, tc.want)
		}
	}
}
