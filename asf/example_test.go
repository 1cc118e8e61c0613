package asf_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/asf"
)

// The example skills: fix calls diagnosis (three step files, the last with
// ask_user: true) and code (no calls, so one step of its body).
func ExampleRunner_Plan() {
	r := asf.New(asf.Options{SkillDirs: []string{"../testdata/asf"}})
	p, err := r.Plan(context.Background(), "fix")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range p.Steps {
		fmt.Printf("%-31s %-17s %s\n", s.Key, s.Mode, strings.Join(s.CallPath, " > "))
	}
	// Output:
	// DIAGNOSIS_001_CAPTURE_CLASSIFY  automatic         fix > diagnosis > 001-capture-classify.md
	// DIAGNOSIS_002_REFERENCE_CHECK   automatic         fix > diagnosis > 002-reference-check.md
	// DIAGNOSIS_007_EXPLAIN_CONFIRM   user_confirmation fix > diagnosis > 007-explain-confirm.md
	// CODE                            automatic         fix > code
}

func ExampleRunner_Complete() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "asf-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	r := asf.New(asf.Options{SkillDirs: []string{"../testdata/asf"}})
	loc := asf.Location{Path: filepath.Join(dir, "state.json")}

	st, _ := r.Init(ctx, loc, "fix", "Fix the login bug", asf.InitOptions{})
	fmt.Println(st.Control.CurrentStep, st.StopPolicy)
	st, _ = r.Complete(ctx, loc, "DIAGNOSIS_001_CAPTURE_CLASSIFY", asf.CompleteOptions{})
	st, _ = r.Complete(ctx, loc, "DIAGNOSIS_002_REFERENCE_CHECK", asf.CompleteOptions{})
	fmt.Println(st.Control.CurrentStep, st.StopPolicy)
	_, err = r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", asf.CompleteOptions{})
	fmt.Println(errors.Is(err, asf.ErrNeedsConfirmation))
	st, _ = r.Complete(ctx, loc, "DIAGNOSIS_007_EXPLAIN_CONFIRM", asf.CompleteOptions{Confirmed: true})
	st, _ = r.Complete(ctx, loc, "CODE", asf.CompleteOptions{})
	fmt.Println(st.Control.Status)
	// Output:
	// DIAGNOSIS_001_CAPTURE_CLASSIFY block_until_step_complete
	// DIAGNOSIS_007_EXPLAIN_CONFIRM allow_user_confirmation
	// true
	// completed
}

func ExampleStepKey() {
	used := map[string]bool{}
	fmt.Println(asf.StepKey("diagnosis", "001-capture-classify.md", used))
	fmt.Println(asf.StepKey("diagnosis", "001-capture-classify.md", used))
	// Output:
	// DIAGNOSIS_001_CAPTURE_CLASSIFY
	// DIAGNOSIS_001_CAPTURE_CLASSIFY_2
}
