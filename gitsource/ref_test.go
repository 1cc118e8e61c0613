package gitsource

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want, remote, rev, subdir string
		note                          bool
	}{
		{in: "git+https://example.com/acme/skills", want: "git+https://example.com/acme/skills", remote: "https://example.com/acme/skills"},
		{in: "git+https://example.com/acme/skills@v1.2.0#skills/pdf", want: "git+https://example.com/acme/skills@v1.2.0#skills/pdf", rev: "v1.2.0", subdir: "skills/pdf"},
		{in: "git+https://example.com/acme/skills#subdirectory=skills/pdf", want: "git+https://example.com/acme/skills#skills/pdf", subdir: "skills/pdf"},
		{in: "git+https://example.com/acme/skills@^1#skills/pdf", want: "git+https://example.com/acme/skills@^1#skills/pdf", rev: "^1", subdir: "skills/pdf"},
		{in: "git+https://user:s3cret@example.com/acme/skills@main", want: "git+https://example.com/acme/skills@main", remote: "https://example.com/acme/skills", rev: "main"},
		{in: "git+ssh://git@github.com/acme/skills@main#a/", want: "git+ssh://git@github.com/acme/skills@main#a", remote: "ssh://git@github.com/acme/skills", rev: "main", subdir: "a"},
		{in: "git+ssh://git:pw@github.com/acme/skills", want: "git+ssh://github.com/acme/skills"},
		{in: "git+file:///srv/repos/skills@0123456789abcdef0123456789abcdef01234567", want: "git+file:///srv/repos/skills@0123456789abcdef0123456789abcdef01234567", remote: "file:///srv/repos/skills", rev: "0123456789abcdef0123456789abcdef01234567"},
		{in: "github:anthropics/skills", want: "git+https://github.com/anthropics/skills"},
		{in: "github:anthropics/skills/document-skills/pdf@main", want: "git+https://github.com/anthropics/skills@main#document-skills/pdf", rev: "main", subdir: "document-skills/pdf"},
		{in: "gitlab:acme/skills.git@v2", want: "git+https://gitlab.com/acme/skills@v2", rev: "v2"},
		{in: "https://github.com/vercel-labs/agent-skills", want: "git+https://github.com/vercel-labs/agent-skills", note: true},
		{in: "https://github.com/anthropics/skills/tree/main/skills/pdf", want: "git+https://github.com/anthropics/skills@main#skills/pdf", rev: "main", subdir: "skills/pdf", note: true},
		{in: "https://tok@github.com/o/r.git", want: "git+https://github.com/o/r", note: true},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := r.String(); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.remote != "" && r.Remote() != tt.remote {
			t.Errorf("Parse(%q).Remote() = %q, want %q", tt.in, r.Remote(), tt.remote)
		}
		if r.Rev != tt.rev || r.Subdir != tt.subdir {
			t.Errorf("Parse(%q): rev %q subdir %q, want %q %q", tt.in, r.Rev, r.Subdir, tt.rev, tt.subdir)
		}
		if (r.Note != "") != tt.note {
			t.Errorf("Parse(%q): note %q", tt.in, r.Note)
		}
		if strings.Contains(r.String()+r.Note+r.Remote(), "s3cret") || strings.Contains(r.Note, "tok@") {
			t.Errorf("Parse(%q) shows a credential: %q %q", tt.in, r.String(), r.Note)
		}
	}
}

func TestParseCredentialsKeptForFetchOnly(t *testing.T) {
	r, err := Parse("git+https://user:s3cret@example.com/acme/skills")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.fetchURL(); got != "https://user:s3cret@example.com/acme/skills" {
		t.Errorf("fetchURL = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"git+ftp://example.com/a/b", ErrInvalidRef},
		{"git+https:///a/b", ErrInvalidRef},
		{"git+https://example.com", ErrInvalidRef},
		{"git+https://example.com/a/b@", ErrInvalidRef},
		{"git+https://example.com/a/b#../../etc", ErrInvalidRef},
		{"git+https://example.com/a/../b", ErrInvalidRef},
		{"git+https://example.com/a/b?x=1", ErrInvalidRef},
		{"git+file://remotehost/a", ErrInvalidRef},
		{"github:acme", ErrInvalidRef},
		{"github:acme/skills@", ErrInvalidRef},
		{"bitbucket:acme/skills", ErrUnknownForge},
		{"https://example.com/acme/skills", ErrUnknownForge},
		{"https://user:s3cret@example.com/acme/skills", ErrUnknownForge},
		{"https://github.com/acme", ErrInvalidRef},
		{"https://github.com/acme/skills/blob/main/x", ErrInvalidRef},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Parse(%q): error shows the credential: %v", tt.in, err)
		}
	}
}

func TestStripCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:token@github.com/a/b.git": "https://github.com/a/b.git",
		"https://token@github.com/a/b.git":      "https://github.com/a/b.git",
		"ssh://git@github.com/a/b.git":          "ssh://git@github.com/a/b.git",
		"ssh://git:pw@github.com/a/b.git":       "ssh://github.com/a/b.git",
		"git@github.com:a/b.git":                "git@github.com:a/b.git",
		"user:TOKEN@github.com:a/b.git":         "github.com:a/b.git",
		"/srv/repo":                             "/srv/repo",
	} {
		if got := StripCredentials(in); got != want {
			t.Errorf("StripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}
