package asf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/skill"
)

// exampleRoot is the repository's example skills: fix -> diagnosis, code.
const exampleRoot = "../testdata/asf"

// invalidRoot holds the workflows that must not run.
const invalidRoot = "../testdata/asf/invalid"

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeSkill makes root/name/SKILL.md with the given execution.calls YAML
// lines (none: a plain skill) and creates the listed step files.
func writeSkill(t *testing.T, root, name string, calls []string, steps ...string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Test skill %s. Use in tests.\nversion: 1.0.0\n", name, name)
	if len(calls) > 0 {
		b.WriteString("execution:\n  calls:\n")
		for _, c := range calls {
			fmt.Fprintf(&b, "    %s\n", c)
		}
	}
	fmt.Fprintf(&b, "---\n# %s\n\nBody of %s.\n", name, name)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		p := filepath.Join(dir, filepath.FromSlash(s))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+s+"\n\nDo "+s+".\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func keys(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Key)
	}
	return out
}

func TestPlanFix(t *testing.T) {
	r := New(Options{SkillDirs: []string{abs(t, exampleRoot)}})
	p, err := r.Plan(context.Background(), "/fix")
	if err != nil {
		t.Fatal(err)
	}
	root := abs(t, exampleRoot)
	want := []Step{
		{Key: "DIAGNOSIS_001_CAPTURE_CLASSIFY", Skill: "diagnosis", File: "diagnosis/001-capture-classify.md", Mode: ModeAutomatic, Kind: KindStep,
			CallPath: []string{"fix", "diagnosis", "001-capture-classify.md"}, Path: filepath.Join(root, "diagnosis", "001-capture-classify.md")},
		{Key: "DIAGNOSIS_002_REFERENCE_CHECK", Skill: "diagnosis", File: "diagnosis/002-reference-check.md", Mode: ModeAutomatic, Kind: KindStep,
			CallPath: []string{"fix", "diagnosis", "002-reference-check.md"}, Path: filepath.Join(root, "diagnosis", "002-reference-check.md")},
		{Key: "DIAGNOSIS_007_EXPLAIN_CONFIRM", Skill: "diagnosis", File: "diagnosis/007-explain-confirm.md", Mode: ModeUserConfirmation, Kind: KindStep,
			CallPath: []string{"fix", "diagnosis", "007-explain-confirm.md"}, Path: filepath.Join(root, "diagnosis", "007-explain-confirm.md")},
		{Key: "CODE", Skill: "code", File: "code/SKILL.md", Mode: ModeAutomatic, Kind: KindSkill,
			CallPath: []string{"fix", "code"}, Path: filepath.Join(root, "code", "SKILL.md")},
	}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", p.Steps, want)
	}
	if p.Skill != "fix" || p.Root != root || p.Dir != filepath.Join(root, "fix") {
		t.Errorf("plan = %s %s %s", p.Skill, p.Root, p.Dir)
	}
}

// TestReferenceOrder checks step keys and order against what the reference
// runtime's flatten_skill produces for the same skills (worked out from its
// algorithm: depth-first, keys "<skill>_<stem>" sanitized and uppercased,
// duplicates _2, _3 across the whole workflow). The only difference is
// deliberate: skillpm adds a KindSkill step for a called skill without
// calls, where the reference adds nothing; dropping those gives the
// reference's list exactly.
func TestReferenceOrder(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "diag", []string{"- step: 001-capture.md", "- step: sub/002 Check Refs.md", "- step: 007_explain.confirm.md", "  ask_user: true"},
		"001-capture.md", "sub/002 Check Refs.md", "007_explain.confirm.md")
	writeSkill(t, root, "code", nil)
	writeSkill(t, root, "twice", []string{"- skill: diag", "- step: 001-capture.md", "- skill: code", "- skill: diag"}, "001-capture.md")
	writeSkill(t, root, "diag-001", []string{"- step: capture.md"}, "capture.md")
	writeSkill(t, root, "clash", []string{"- skill: diag", "- skill: diag-001"})
	writeSkill(t, root, "odd", []string{"- step: ---.md", "- step: ---.md"}, "---.md")

	cases := []struct {
		skill     string
		reference []string
		skillpm   []string
	}{
		{"diag", []string{"DIAG_001_CAPTURE", "DIAG_002_CHECK_REFS", "DIAG_007_EXPLAIN_CONFIRM"}, nil},
		{"twice",
			[]string{"DIAG_001_CAPTURE", "DIAG_002_CHECK_REFS", "DIAG_007_EXPLAIN_CONFIRM", "TWICE_001_CAPTURE",
				"DIAG_001_CAPTURE_2", "DIAG_002_CHECK_REFS_2", "DIAG_007_EXPLAIN_CONFIRM_2"},
			[]string{"DIAG_001_CAPTURE", "DIAG_002_CHECK_REFS", "DIAG_007_EXPLAIN_CONFIRM", "TWICE_001_CAPTURE", "CODE",
				"DIAG_001_CAPTURE_2", "DIAG_002_CHECK_REFS_2", "DIAG_007_EXPLAIN_CONFIRM_2"}},
		// diag-001 + capture and diag + 001-capture both sanitize to
		// DIAG_001_CAPTURE.
		{"clash", []string{"DIAG_001_CAPTURE", "DIAG_002_CHECK_REFS", "DIAG_007_EXPLAIN_CONFIRM", "DIAG_001_CAPTURE_2"}, nil},
		{"odd", []string{"ODD", "ODD_2"}, nil},
	}
	r := New(Options{SkillDirs: []string{root}})
	for _, c := range cases {
		t.Run(c.skill, func(t *testing.T) {
			p, err := r.Plan(context.Background(), c.skill)
			if err != nil {
				t.Fatal(err)
			}
			var ref []string
			for _, s := range p.Steps {
				if s.Kind == KindStep {
					ref = append(ref, s.Key)
				}
			}
			if !reflect.DeepEqual(ref, c.reference) {
				t.Errorf("reference keys:\n got %v\nwant %v", ref, c.reference)
			}
			want := c.skillpm
			if want == nil {
				want = c.reference
			}
			if got := keys(p.Steps); !reflect.DeepEqual(got, want) {
				t.Errorf("skillpm keys:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestStepKey(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct{ skill, file, want string }{
		{"diagnosis", "001-capture-classify.md", "DIAGNOSIS_001_CAPTURE_CLASSIFY"},
		{"diagnosis", "001-capture-classify.md", "DIAGNOSIS_001_CAPTURE_CLASSIFY_2"},
		{"diagnosis", "001-capture-classify.md", "DIAGNOSIS_001_CAPTURE_CLASSIFY_3"},
		{"my-skill", "steps/Étape 1.md", "MY_SKILL_TAPE_1"},
		{"a", "b.c.md", "A_B_C"},
		{"x", `dir\win.md`, "X_WIN"},
	} {
		if got := StepKey(c.skill, c.file, used); got != c.want {
			t.Errorf("StepKey(%q, %q) = %q, want %q", c.skill, c.file, got, c.want)
		}
	}
	if got := sanitizeKey("--"); got != "STEP" {
		t.Errorf("sanitizeKey(--) = %q", got)
	}
}

func TestPlanErrors(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "self", []string{"- skill: self"})
	writeSkill(t, root, "bad-yaml", nil)
	if err := os.WriteFile(filepath.Join(root, "bad-yaml", "SKILL.md"), []byte("---\nname: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, root, "calls-bad", []string{"- skill: bad-yaml"})
	writeSkill(t, root, "link", []string{"- step: 001.md"})
	if err := os.Symlink("/etc/hostname", filepath.Join(root, "link", "001.md")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		writeSkill(t, root, fmt.Sprintf("d%d", i), []string{fmt.Sprintf("- skill: d%d", i+1)})
	}
	writeSkill(t, root, "d5", []string{"- step: s.md"}, "s.md")

	dirs := []string{abs(t, invalidRoot), abs(t, exampleRoot), root}
	cases := []struct {
		skill    string
		maxDepth int
		is       error
		msg      string
		plan     bool
	}{
		{"cycle-a", 0, ErrCycle, "cycle-a > cycle-b > cycle-a: call cycle", true},
		{"self", 0, ErrCycle, "self > self: call cycle", true},
		{"broken-fix", 0, ErrStepFileNotFound, "broken-fix > broken-diagnosis > 009-missing.md: step file not found: ", true},
		{"orphan", 0, ErrSkillNotFound, "orphan > nowhere: skill not found: nowhere (searched: ", true},
		{"calls-bad", 0, ErrInvalidSkill, "calls-bad > bad-yaml: invalid skill: ", true},
		{"bad-yaml", 0, ErrInvalidSkill, "bad-yaml: invalid skill: ", true},
		{"link", 0, ErrStepFileNotFound, "link > 001.md: step file not found: ", true},
		{"d0", 4, ErrTooDeep, "d0 > d1 > d2 > d3 > d4: skill calls nested too deeply (limit 4)", true},
		{"code", 0, ErrNotWorkflow, "code: not an ASF workflow", false},
		{"missing", 0, ErrSkillNotFound, "skill not found: missing", false},
		{"../etc", 0, ErrInvalidSkillName, "invalid skill name", false},
		{"", 0, ErrInvalidSkillName, "invalid skill name", false},
	}
	for _, c := range cases {
		t.Run(c.skill, func(t *testing.T) {
			r := New(Options{SkillDirs: dirs, MaxDepth: c.maxDepth})
			_, err := r.Plan(context.Background(), c.skill)
			if !errors.Is(err, c.is) {
				t.Fatalf("err = %v, want %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %q, want it to contain %q", err, c.msg)
			}
			var pe *PlanError
			if errors.As(err, &pe) != c.plan {
				t.Errorf("PlanError = %v, want %v", !c.plan, c.plan)
			}
		})
	}
	// The depth limit counts the root: d0..d5 is 6 deep.
	if _, err := New(Options{SkillDirs: dirs, MaxDepth: 6}).Plan(context.Background(), "d0"); err != nil {
		t.Errorf("depth 6 within limit 6: %v", err)
	}
}

func TestPlanCallsByReference(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "leaf", []string{"- step: a.md"}, "a.md")
	writeSkill(t, root, "top", []string{"- skill: ghcr.io/acme/skills/leaf"})
	p, err := New(Options{SkillDirs: []string{root}}).Plan(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(p.Steps); !reflect.DeepEqual(got, []string{"LEAF_A"}) {
		t.Errorf("keys = %v", got)
	}
}

func TestPlanSearchOrder(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	writeSkill(t, first, "wf", []string{"- step: first.md"}, "first.md")
	writeSkill(t, second, "wf", []string{"- step: second.md"}, "second.md")
	writeSkill(t, second, "only-second", []string{"- skill: wf"})
	r := New(Options{SkillDirs: []string{first, second}})
	p, err := r.Plan(context.Background(), "only-second")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(p.Steps); !reflect.DeepEqual(got, []string{"WF_FIRST"}) {
		t.Errorf("keys = %v: the first root must shadow the second", got)
	}
	if p.Root != second {
		t.Errorf("root = %s, want %s", p.Root, second)
	}
}

func TestPlanCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{SkillDirs: []string{abs(t, exampleRoot)}}).Plan(ctx, "fix")
	if err == nil {
		t.Fatal("want an error from a canceled context")
	}
}

func TestInvalidSkillKeepsDiagnostics(t *testing.T) {
	_, err := New(Options{SkillDirs: []string{abs(t, invalidRoot)}}).Plan(context.Background(), "broken-fix")
	var ve *skill.ValidationError
	if errors.As(err, &ve) {
		t.Errorf("a missing step is the planner's error, not a diagnostic: %v", err)
	}
}
