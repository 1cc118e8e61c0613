//go:build unix

package tiers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPolicyRefusesFIFO: a policy whose key: names a FIFO used to hang
// forever reading it; it is refused at once, as is a policy file that is
// itself a FIFO. (No writer ever opens the FIFOs: a hang would be the
// test's timeout.)
func TestPolicyRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "publisher.pub")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.yaml")
	policy := "version: 1\npolicies:\n  - name: p\n    scopes: [\"*\"]\n    tier: community\n    identities:\n      - key: publisher.pub\n"
	if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), path)
	if !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "policy.yaml:7") {
		t.Fatalf("policy naming a FIFO key: %v, want an invalid-policy error at policy.yaml:7 saying it is a named pipe", err)
	}
	pfifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(pfifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), pfifo); !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("a FIFO policy file: %v", err)
	}
}
