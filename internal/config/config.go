// Package config reads skillpm's configuration file, config.yaml: the
// default source of bare skill names, the default agent host, the
// registries that may be reached over plain HTTP, and the trust policy
// file commands read when neither they nor the project name one.
//
//	registry: ghcr.io/acme/skills   # or oci-layout:DIR (relative to this file), or embedded
//	host: claude
//	link: true                      # install --link by default
//	plain-http:
//	  - registry.internal:5000
//	http-timeout: 10s               # connect, stall and answer timeouts (SKILLPM_HTTP_TIMEOUT wins)
//	mirrors:                        # pull mirrors, tried in order before the registry
//	  ghcr.io:                      # for content named by digest (see registry.Options.Mirrors)
//	    - mirror.internal:5000
//	    - cache.internal/ghcr       # ghcr.io/acme/skills/x is cache.internal/ghcr/acme/skills/x there
//	policy: team-policy.yaml        # relative to this file
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/userdir"
	"github.com/skillpm/skillpm/internal/yamlstrict"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"gopkg.in/yaml.v3"
)

// EnvVar names the configuration file when --config does not.
const EnvVar = "SKILLPM_CONFIG"

// TimeoutEnvVar sets the registry timeout, over the file's http-timeout:
// a duration ("10s") or seconds ("10"), as CARGO_HTTP_TIMEOUT and
// UV_HTTP_TIMEOUT take it.
const TimeoutEnvVar = "SKILLPM_HTTP_TIMEOUT"

// maxSize bounds the file: a configuration is a few lines.
const maxSize = 64 << 10

// Config is the configuration. Its zero value is "nothing configured".
type Config struct {
	// File is the file it was read from, "" when there was none.
	File string
	// Registry is the default source of bare names, canonical (an
	// oci-layout path is absolute); "" means the embedded registry.
	Registry string
	// Host is the default agent host; "" means install.DefaultHost.
	Host install.HostID
	// PlainHTTP lists registry hosts ("host" or "host:port") reached over
	// plain HTTP without --plain-http, loopback or not.
	PlainHTTP []string
	// Link is link: (install --link unless the command says --link=false);
	// nil when the file does not say.
	Link *bool
	// HTTPTimeout is the registry timeout (registry.TimeoutsFor):
	// $SKILLPM_HTTP_TIMEOUT, else the file's http-timeout; 0 when
	// neither says.
	HTTPTimeout time.Duration
	// Mirrors is mirrors:, the pull mirrors of each registry host
	// (registry.Options.Mirrors); nil when the file does not say.
	Mirrors map[string][]string
	// Policy is policy:, the trust policy file every command reads when
	// neither the command nor the project names one (absolute: read
	// against the configuration's directory); "" when the file does not
	// say.
	Policy string
}

// file is the on-disk shape.
type file struct {
	Registry  string              `yaml:"registry"`
	Host      string              `yaml:"host"`
	PlainHTTP []string            `yaml:"plain-http"`
	Link      *bool               `yaml:"link"`
	Timeout   string              `yaml:"http-timeout"`
	Policy    string              `yaml:"policy"`
	Mirrors   map[string][]string `yaml:"mirrors"`
}

// DefaultPath returns $XDG_CONFIG_HOME/skillpm/config.yaml, with
// XDG_CONFIG_HOME defaulting to %APPDATA% on Windows and ~/.config
// elsewhere (userdir.ConfigHome); "" when none is set.
func DefaultPath(getenv func(string) string) string {
	dir := userdir.ConfigHome(runtime.GOOS, getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "skillpm", "config.yaml")
}

// Load reads the configuration: path when not "", else the file $EnvVar
// names, else DefaultPath. A file named by path or $EnvVar must exist; the
// default one may be missing, which is an empty Config.
func Load(path string, getenv func(string) string) (*Config, error) {
	cfg, err := load(path, getenv)
	if err != nil {
		return nil, err
	}
	if v := getenv(TimeoutEnvVar); v != "" {
		d, err := registry.ParseTimeout(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TimeoutEnvVar, err)
		}
		cfg.HTTPTimeout = d
	}
	return cfg, nil
}

func load(path string, getenv func(string) string) (*Config, error) {
	explicit := path != ""
	if !explicit {
		path = getenv(EnvVar)
		explicit = path != ""
	}
	if !explicit {
		path = DefaultPath(getenv)
		if path == "" {
			return &Config{}, nil
		}
	}
	// A FIFO or a link to a device (/dev/zero) would block or never end.
	data, err := boundedfile.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return &Config{}, nil
	}
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if _, ok := errors.AsType[*boundedfile.NotRegularError](err); ok {
		return nil, fmt.Errorf("%w: %w: the configuration must be a YAML file; replace it with one", ErrInvalid, err)
	}
	if err != nil {
		// The file the user named (or the default) cannot be read: a
		// usage error whatever the cause below.
		return nil, errdef.WithClass(errdef.Usage, fmt.Errorf("reading the configuration: %w", err))
	}
	return Parse(path, data)
}

// Parse reads a configuration file's content; path names it in errors and
// anchors a relative oci-layout registry.
func Parse(path string, data []byte) (*Config, error) {
	cfg := &Config{File: path}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrInvalid, err)
	}
	if len(root.Content) == 0 {
		return cfg, nil
	}
	top := root.Content[0]
	at := func(n *yaml.Node) string { return skill.Position(path, n.Line, n.Column) }
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: %w: the configuration is a mapping with the keys registry, host, link, plain-http, http-timeout, policy and mirrors", at(top), ErrInvalid)
	}
	known := []string{"registry", "host", "link", "plain-http", "http-timeout", "policy", "mirrors"}
	err := yamlstrict.Mapping{Known: known, FollowAliases: true}.Pairs(top, func(_, _ *yaml.Node) error { return nil }, func(p yamlstrict.Problem) error {
		k := p.Node
		switch p.Kind {
		case yamlstrict.Duplicate:
			return fmt.Errorf("%s: %w: key %q is written twice (first at line %d)", at(k), ErrInvalid, k.Value, p.First.Line)
		case yamlstrict.Unknown:
			return fmt.Errorf("%s: %w: unknown key %q (known: %s)", at(k), ErrInvalid, k.Value, strings.Join(known, ", "))
		case yamlstrict.MergeKey:
			return fmt.Errorf("%s: %w: YAML merge keys (<<) are not allowed; write the keys out", at(k), ErrInvalid)
		}
		return fmt.Errorf("%s: %w: keys are plain words (known: %s)", at(k), ErrInvalid, strings.Join(known, ", "))
	})
	if err != nil {
		return nil, err
	}
	var f file
	if err := top.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrInvalid, err)
	}
	value := func(key string) *yaml.Node {
		for i := 0; i < len(top.Content); i += 2 {
			if top.Content[i].Value == key {
				return top.Content[i+1]
			}
		}
		return top
	}
	if f.Registry != "" {
		spec, err := source.Parse(f.Registry)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: registry: %v", at(value("registry")), ErrInvalid, err)
		}
		if spec.Kind != source.KindEmbedded {
			cfg.Registry = spec.Canonical(filepath.Dir(path))
		}
	}
	if f.Host != "" {
		h, err := install.ParseHost(f.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: host: %v", at(value("host")), ErrInvalid, err)
		}
		cfg.Host = h
	}
	cfg.Link = f.Link
	if f.Timeout != "" {
		d, err := registry.ParseTimeout(f.Timeout)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: http-timeout: %v", at(value("http-timeout")), ErrInvalid, err)
		}
		cfg.HTTPTimeout = d
	}
	if f.Policy != "" {
		cfg.Policy = f.Policy
		if !filepath.IsAbs(cfg.Policy) {
			cfg.Policy = filepath.Join(filepath.Dir(path), cfg.Policy)
		}
	}
	if len(f.Mirrors) > 0 {
		if err := (registry.Options{Mirrors: f.Mirrors}).Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w: mirrors: %v", at(value("mirrors")), ErrInvalid, strings.TrimPrefix(err.Error(), registry.ErrInvalidOptions.Error()+": Mirrors: "))
		}
		cfg.Mirrors = f.Mirrors
	}
	for i, h := range f.PlainHTTP {
		spec, err := source.Parse(h)
		if err != nil || spec.Kind != source.KindRemote || strings.Contains(h, "/") {
			n := value("plain-http")
			if n.Kind == yaml.SequenceNode && i < len(n.Content) {
				n = n.Content[i]
			}
			return nil, fmt.Errorf("%s: %w: plain-http: %q is not a registry host (write host or host:port)", at(n), ErrInvalid, h)
		}
		cfg.PlainHTTP = append(cfg.PlainHTTP, h)
	}
	return cfg, nil
}
