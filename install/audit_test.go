package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/audit"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/tiers"
)

func auditFixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "audit"}, parts...)...)
}

func TestAuditStaged(t *testing.T) {
	ctx := context.Background()
	clean := auditFixture("clean", "web-fetch")
	exfil := auditFixture("hostile", "instr-exfil")
	fenced := auditFixture("review", "fenced-injection")
	tests := []struct {
		name      string
		staged    map[string]string
		effective map[string]skill.Tier
		allow     bool
		want      map[string]audit.Decision
		refused   []string
	}{
		{name: "clean passes", staged: map[string]string{"web-fetch": clean},
			want: map[string]audit.Decision{"web-fetch": audit.Pass}},
		{name: "critical blocks", staged: map[string]string{"web-fetch": clean, "instr-exfil": exfil},
			effective: map[string]skill.Tier{"instr-exfil": "experimental"},
			want:      map[string]audit.Decision{"web-fetch": audit.Pass, "instr-exfil": audit.Block}, refused: []string{"instr-exfil"}},
		{name: "allowed", staged: map[string]string{"instr-exfil": exfil}, allow: true,
			want: map[string]audit.Decision{"instr-exfil": audit.Block}},
		{name: "judged at the effective tier", staged: map[string]string{"fenced": fenced},
			effective: map[string]skill.Tier{"fenced": "experimental"},
			want:      map[string]audit.Decision{"fenced": audit.Pass}},
		{name: "claimed tier by default", staged: map[string]string{"fenced": fenced},
			want: map[string]audit.Decision{"fenced": audit.Review}},
		{name: "verified is stricter", staged: map[string]string{"fenced": fenced},
			effective: map[string]skill.Tier{"fenced": "verified"},
			want:      map[string]audit.Decision{"fenced": audit.Block}, refused: []string{"fenced"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AuditStaged(ctx, tt.staged, tt.effective, AuditOptions{Auditor: testAuditor{tool: "skillpm-test"}, AllowFindings: tt.allow})
			if len(out) != len(tt.want) {
				t.Fatalf("%d outcomes, want %d (err %v)", len(out), len(tt.want), err)
			}
			for i, o := range out {
				if i > 0 && out[i-1].Name >= o.Name {
					t.Errorf("outcomes not sorted: %s before %s", out[i-1].Name, o.Name)
				}
				if o.Verdict.Decision != string(tt.want[o.Name]) {
					t.Errorf("%s: %s, want %s", o.Name, o.Verdict.Decision, tt.want[o.Name])
				}
				if !strings.HasPrefix(o.Verdict.Digest, "sha256:") || o.Verdict.Report.(*audit.Report).Tool != "skillpm-test" || o.Dir != tt.staged[o.Name] {
					t.Errorf("%s: outcome %+v", o.Name, o)
				}
				if o.Allowed != (tt.allow && o.Blocks()) {
					t.Errorf("%s: allowed %v", o.Name, o.Allowed)
				}
			}
			if len(tt.refused) == 0 {
				if err != nil {
					t.Fatalf("err %v", err)
				}
				return
			}
			var re *AuditRefusedError
			if !errors.Is(err, tiers.ErrRefused) || !errors.As(err, &re) {
				t.Fatalf("err %v, want an *AuditRefusedError wrapping tiers.ErrRefused", err)
			}
			if len(re.Blocked) != len(tt.refused) {
				t.Errorf("blocked %d, want %v", len(re.Blocked), tt.refused)
			}
			for _, name := range tt.refused {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error does not name %s: %v", name, err)
				}
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("library error names a CLI flag: %v", err)
			}
		})
	}
}

func TestAuditStagedRefusalNamesFindings(t *testing.T) {
	_, err := AuditStaged(context.Background(), map[string]string{"instr-exfil": auditFixture("hostile", "instr-exfil")}, nil, AuditOptions{Auditor: newTestAuditor()})
	if err == nil || !strings.Contains(err.Error(), "AUD-INSTR-EXFIL at SKILL.md:11:8") || !strings.Contains(err.Error(), "instr-exfil@1.0.0 at tier community") {
		t.Errorf("err %v", err)
	}
}

func TestAuditStagedErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := AuditStaged(ctx, map[string]string{"gone": filepath.Join(t.TempDir(), "gone")}, nil, AuditOptions{Auditor: newTestAuditor()}); err == nil || !strings.Contains(err.Error(), "auditing gone") {
		t.Errorf("missing dir: %v", err)
	}
	clean := auditFixture("clean", "web-fetch")
	if _, err := AuditStaged(ctx, map[string]string{"web-fetch": clean}, map[string]skill.Tier{"web-fetch": "gold"}, AuditOptions{Auditor: newTestAuditor()}); !errors.Is(err, audit.ErrTier) {
		t.Errorf("bad tier: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := AuditStaged(cancelled, map[string]string{"web-fetch": clean}, nil, AuditOptions{Auditor: newTestAuditor()}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// The audit is never skipped by omission.
	if _, err := AuditStaged(ctx, map[string]string{"web-fetch": clean}, nil, AuditOptions{}); !errors.Is(err, ErrNoAuditor) {
		t.Errorf("no auditor: %v, want ErrNoAuditor", err)
	}
	if out, err := AuditStaged(ctx, nil, nil, AuditOptions{Auditor: newTestAuditor()}); err != nil || len(out) != 0 {
		t.Errorf("nothing staged: %v, %v", out, err)
	}
}

// TestInstallNeedsAnAuditor: an install that names no Auditor is refused
// before anything is committed, unless it says NoAuditUnsafe.
func TestInstallNeedsAnAuditor(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("txa", "1.0.0", nil, nil)
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		t.Fatal(err)
	}
	m := &resolve.Manifest{File: "test", Skills: []resolve.Requirement{{Name: "txa", Range: resolve.AnyRange}}}
	root := filepath.Join(t.TempDir(), "root")
	opts := Options{Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true}
	if _, err := Install(context.Background(), r.client, g, m, nil, opts); !errors.Is(err, ErrNoAuditor) {
		t.Fatalf("install without an auditor: %v, want ErrNoAuditor", err)
	}
	if _, err := os.Stat(filepath.Join(root, "txa")); !os.IsNotExist(err) {
		t.Fatalf("the refused install left txa in the root (%v)", err)
	}
	opts.NoAuditUnsafe = true
	if _, err := Install(context.Background(), r.client, g, m, nil, opts); err != nil {
		t.Fatalf("install with NoAuditUnsafe: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "txa", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
}
