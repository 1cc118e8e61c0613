package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	orasregistry "oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// LoginResult says where credentials were stored.
type LoginResult struct {
	// Registry is the registry logged in to ("host[:port]").
	Registry string
	// Helper is the credential helper that stored them ("desktop",
	// "pass", ...), "" when they went into the config file.
	Helper string
	// ConfigPath is the Docker config file; when Helper is "" it holds the
	// credentials, base64-encoded but not encrypted.
	ConfigPath string
}

// Login checks username and password against host (a request to /v2/
// that must succeed with them) and stores them where Docker would: the
// host's credential helper, else the config's credsStore, else the config
// file itself. Only Docker's own store (Options.Credentials nil) can say
// where; a custom store gives an empty LoginResult.ConfigPath.
func (c *Client) Login(ctx context.Context, host, username, password string) (LoginResult, error) {
	store, err := c.credentialStore()
	if err != nil {
		return LoginResult{}, err
	}
	reg, err := c.remoteRegistry(host)
	if err != nil {
		return LoginResult{}, err
	}
	cred := auth.Credential{Username: username, Password: password}
	if err := credentials.Login(ctx, store, reg, cred); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return LoginResult{}, err
		}
		return LoginResult{}, &RequestError{Op: "login", Registry: host, Err: err}
	}
	res := LoginResult{Registry: host}
	if ds, ok := store.(*credentials.DynamicStore); ok {
		res.ConfigPath = ds.ConfigPath()
		res.Helper = helperFor(ctx, res.ConfigPath, credentials.ServerAddressFromRegistry(host))
	}
	return res, nil
}

// Logout removes the stored credentials of host. Logging out of a host
// with none stored is not an error.
func (c *Client) Logout(ctx context.Context, host string) error {
	store, err := c.credentialStore()
	if err != nil {
		return err
	}
	if _, err := orasregistry.ParseReference(host + "/x"); err != nil {
		return fmt.Errorf("%w: %q is not a registry host: %v", ErrInvalidRef, host, err)
	}
	return credentials.Logout(ctx, store, host)
}

func (c *Client) remoteRegistry(host string) (*remote.Registry, error) {
	reg, err := remote.NewRegistry(host)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a registry host: %v", ErrInvalidRef, host, err)
	}
	plain, err := c.plainHTTP(host)
	if err != nil {
		return nil, err
	}
	reg.PlainHTTP = plain
	reg.Client = c.http
	return reg, nil
}

// helperFor reads which credential helper Docker's config assigns to
// server, "" for the config file itself.
func helperFor(ctx context.Context, configPath, server string) string {
	if ctx.Err() != nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Clean(configPath))
	if err != nil {
		return ""
	}
	var cfg struct {
		CredsStore  string            `json:"credsStore"`
		CredHelpers map[string]string `json:"credHelpers"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return ""
	}
	if h := cfg.CredHelpers[server]; h != "" {
		return h
	}
	return cfg.CredsStore
}
