//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProjectFilesNotRegular: skills.yaml, skills.lock and config.yaml
// come with a repository; as a link to /dev/zero or as a FIFO they are
// refused at once, naming the file and what it is (no writer ever opens
// the FIFOs: a hang would be the test's timeout, an unbounded read its
// memory).
func TestProjectFilesNotRegular(t *testing.T) {
	const manifest = "skills:\n  notes: ^1\n"
	for _, tc := range []struct {
		name, file, kind string
		args             []string
	}{
		{"manifest to /dev/zero", "skills.yaml", "zero", []string{"install"}},
		{"manifest FIFO", "skills.yaml", "fifo", []string{"lock"}},
		{"lock to /dev/zero", "skills.lock", "zero", []string{"install", "--frozen"}},
		{"lock FIFO", "skills.lock", "fifo", []string{"install"}},
		{"config FIFO", "config.yaml", "fifo", []string{"list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			cliEnv(t, work)
			proj := filepath.Join(work, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(proj)
			if tc.file != "skills.yaml" {
				if err := os.WriteFile("skills.yaml", []byte(manifest), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.file == "config.yaml" {
				t.Setenv("SKILLPM_CONFIG", filepath.Join(proj, tc.file))
			}
			var err error
			if tc.kind == "zero" {
				err = os.Symlink("/dev/zero", tc.file)
			} else {
				err = syscall.Mkfifo(tc.file, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			what := "a named pipe (FIFO), not a regular file"
			if tc.kind == "zero" {
				what = "a device, not a regular file"
			}
			code, msg := skillpmErr(tc.args...)
			if code == 0 || !strings.Contains(msg, tc.file+" is "+what) {
				t.Errorf("skillpm %s: exit %d: %s", strings.Join(tc.args, " "), code, msg)
			}
		})
	}
}
