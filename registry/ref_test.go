package registry

import (
	"testing"
)

func TestTags(t *testing.T) {
	if got := Tag("1.2.3+build.1"); got != "1.2.3_build.1" {
		t.Errorf("Tag = %q", got)
	}
	for tag, want := range map[string]string{"1.2.3_build.1": "1.2.3+build.1", "1.0.0-rc.1": "1.0.0-rc.1", "latest": "", "v1.0.0": "", "1.0": ""} {
		v := VersionFromTag(tag)
		got := ""
		if v != nil {
			got = v.String()
		}
		if got != want {
			t.Errorf("VersionFromTag(%q) = %q, want %q", tag, got, want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost:5000": true, "127.0.0.1:5000": true, "127.1.2.3": true, "[::1]:5000": true, "LOCALHOST": true,
		"ghcr.io": false, "10.0.0.1:5000": false, "localhost.evil.com": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v", host, got)
		}
	}
}
