package archive

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestPackHonoursGitignore: what the root .gitignore ignores is not packed,
// like what .skillignore ignores; both apply together.
func TestPackHonoursGitignore(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{
		".gitignore":            {body: "dist/\n*.tmp\n"},
		".skillignore":          {body: "notes.md\n"},
		"SKILL.md":              {body: "x"},
		"dist/bundle.js":        {body: "x"},
		"scratch.tmp":           {body: "x"},
		"notes.md":              {body: "x"},
		"scripts/run.py":        {body: "x"},
		"scripts/cache.tmp":     {body: "x"},
		"web/.gitignore":        {body: "/build\n"},
		"web/build/app.js":      {body: "x"},
		"web/src/build/keep.js": {body: "kept: /build is anchored at web/"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	data, _ := packBytes(t, dir, PackOptions{})
	want := []string{".gitignore", ".skillignore", "SKILL.md", "scripts/", "scripts/run.py",
		"web/", "web/.gitignore", "web/src/", "web/src/build/", "web/src/build/keep.js"}
	if got := headerNames(tarHeaders(t, data)); !slices.Equal(got, want) {
		t.Fatalf("entries:\n got %q\nwant %q", got, want)
	}
}

// TestPackRefusesEnvFiles: an environment file is an error naming it and
// how to exclude it; once ignored, the rest packs; templates are packed.
func TestPackRefusesEnvFiles(t *testing.T) {
	for _, name := range []string{".env", ".env.local", "config/.env.production", ".envrc"} {
		dir := t.TempDir()
		files := map[string]spec{"SKILL.md": {body: "x"}, name: {body: "API_KEY=sk-live-123\n"}}
		writeTree(t, dir, sortedKeys(files), files)
		_, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{})
		var ee *EntryError
		if !errors.Is(err, ErrSecretFile) || !errors.As(err, &ee) || ee.Entry != name || !strings.Contains(err.Error(), ".skillignore") {
			t.Fatalf("%s: err = %v, want ErrSecretFile naming it and .skillignore", name, err)
		}
		files[".skillignore"] = spec{body: name + "\n"}
		writeTree(t, dir, sortedKeys(files), files)
		if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
			t.Fatalf("%s ignored: %v", name, err)
		}
	}
	dir := t.TempDir()
	files := map[string]spec{"SKILL.md": {body: "x"}, ".env.example": {body: "API_KEY=\n"}}
	writeTree(t, dir, sortedKeys(files), files)
	if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
		t.Fatalf(".env.example: %v", err)
	}
}

// TestPackWarnings: node_modules, __pycache__, .venv and .DS_Store are
// packed and reported through PackOptions.Warn, each directory once.
func TestPackWarnings(t *testing.T) {
	dir := t.TempDir()
	files := map[string]spec{
		"SKILL.md":                  {body: "x"},
		"node_modules/a/index.js":   {body: "x"},
		"node_modules/b/index.js":   {body: "x"},
		"scripts/__pycache__/x.pyc": {body: "x"},
		".venv/bin/python":          {body: "x"},
		"assets/.DS_Store":          {body: "x"},
		"scripts/run.py":            {body: "x"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	var got []string
	data, _ := packBytes(t, dir, PackOptions{Warn: func(w PackWarning) { got = append(got, w.Path) }})
	want := []string{".venv/", "assets/.DS_Store", "node_modules/", "scripts/__pycache__/"}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	if names := headerNames(tarHeaders(t, data)); !slices.Contains(names, "node_modules/a/index.js") {
		t.Fatalf("warned paths must still be packed: %q", names)
	}
}

// TestPackRefusesCredentialFiles: credential and history files, by name
// or by folder, and .pem or .key files holding a private key are refused
// naming the file, what it is, and how to exclude it; public keys,
// certificates and files that only mention credentials are packed.
func TestPackRefusesCredentialFiles(t *testing.T) {
	const privateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n"
	for _, tc := range []struct{ name, body, kind string }{
		{".npmrc", "//registry.npmjs.org/:_authToken=npm_x\n", "an npm configuration"},
		{".pypirc", "[pypi]\npassword = pypi-x\n", "a PyPI configuration"},
		{".netrc", "machine example.com login me password x\n", "a netrc file"},
		{".ssh/id_ed25519", privateKey, "an SSH private key"},
		{"keys/id_rsa", privateKey, "an SSH private key"},
		{".bash_history", "export TOKEN=x\n", "a shell history"},
		{"credentials.json", "{}\n", "a credentials file"},
		{".aws/credentials", "[default]\naws_secret_access_key = x\n", "AWS credentials"},
		{"certs/server.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n-----BEGIN RSA PRIVATE KEY-----\nx\n", "a private key"},
		{"tls.key", "-----BEGIN EC PRIVATE KEY-----\nx\n", "a private key"},
		{"store.p12", "\x30\x82", "a PKCS #12 key store"},
	} {
		dir := t.TempDir()
		files := map[string]spec{"SKILL.md": {body: "x"}, tc.name: {body: tc.body}}
		writeTree(t, dir, sortedKeys(files), files)
		_, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{})
		var ee *EntryError
		if !errors.Is(err, ErrSecretFile) || !errors.As(err, &ee) || ee.Entry != tc.name || !strings.Contains(err.Error(), tc.kind) ||
			!strings.Contains(err.Error(), `add "`+tc.name+`" to .skillignore`) {
			t.Fatalf("%s: err = %v, want ErrSecretFile naming it as %s and .skillignore", tc.name, err, tc.kind)
		}
		files[".skillignore"] = spec{body: tc.name + "\n"}
		writeTree(t, dir, sortedKeys(files), files)
		if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
			t.Fatalf("%s ignored: %v", tc.name, err)
		}
	}
	dir := t.TempDir()
	files := map[string]spec{"SKILL.md": {body: "x"},
		"certs/ca.pem":        {body: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"},
		".ssh/id_ed25519.pub": {body: "ssh-ed25519 AAAA me\n"},
		"docs/credentials.md": {body: "Where credentials go.\n"},
		"config/public.key":   {body: "-----BEGIN PUBLIC KEY-----\nx\n"},
	}
	writeTree(t, dir, sortedKeys(files), files)
	if _, err := Pack(t.Context(), dir, &strings.Builder{}, PackOptions{}); err != nil {
		t.Fatalf("public material: %v", err)
	}
}
