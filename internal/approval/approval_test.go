package approval

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestApproval(t *testing.T) {
	dir := t.TempDir()
	s := Store{Dir: filepath.Join(dir, "state")}
	policy := filepath.Join(dir, "proj", "policy.yaml")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	if s.Approved(policy, "sha256:a") {
		t.Fatal("approved before any approval")
	}
	if err := s.Approve(policy, "sha256:a", now); err != nil {
		t.Fatal(err)
	}
	if !s.Approved(policy, "sha256:a") {
		t.Fatal("not approved after Approve")
	}
	if s.Approved(policy, "sha256:b") {
		t.Fatal("a changed policy counts as approved")
	}
	if s.Approved(filepath.Join(dir, "other", "policy.yaml"), "sha256:a") {
		t.Fatal("the same bytes at another path count as approved")
	}
	if s.Approved(policy, "") {
		t.Fatal("an empty digest counts as approved")
	}
	// A relative spelling of the same file shares the record.
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join(dir))
	if !s.Approved(filepath.Join("proj", "..", "proj", "policy.yaml"), "sha256:a") {
		t.Error("another spelling of the path is not approved")
	}
	t.Chdir(wd)

	// A record that is corrupt, or names another path, approves nothing.
	rec := s.file(policy)
	for name, data := range map[string]string{
		"corrupt":    "{not json",
		"other path": `{"path":"/elsewhere/policy.yaml","digest":"sha256:a"}`,
		"no digest":  `{"path":"` + policy + `"}`,
	} {
		if err := os.WriteFile(rec, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if s.Approved(policy, "sha256:a") {
			t.Errorf("%s record: approved", name)
		}
	}

	if err := s.Approve(policy, "sha256:b", now); err != nil {
		t.Fatal(err)
	}
	if !s.Approved(policy, "sha256:b") || s.Approved(policy, "sha256:a") {
		t.Fatal("a second approval does not replace the first")
	}
	if ok, err := s.Revoke(policy); !ok || err != nil {
		t.Fatalf("Revoke = %v, %v", ok, err)
	}
	if s.Approved(policy, "sha256:b") {
		t.Fatal("approved after Revoke")
	}
	if ok, err := s.Revoke(policy); ok || err != nil {
		t.Fatalf("second Revoke = %v, %v; want false, nil", ok, err)
	}

	var zero Store
	if zero.Approved(policy, "sha256:a") {
		t.Error("the zero store approves")
	}
	if err := zero.Approve(policy, "sha256:a", now); err == nil {
		t.Error("the zero store records an approval")
	}
}

func TestDefault(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/st"}
	if got, want := Default(func(k string) string { return env[k] }).Dir, filepath.Join("/st", "skillpm", "approved-policies"); got != want {
		t.Errorf("Default = %q, want %q", got, want)
	}
	if got := Default(func(string) string { return "" }).Dir; got != "" {
		t.Errorf("Default with no home = %q, want none", got)
	}
}
