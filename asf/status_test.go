package asf

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestStatusReadsControl: when the reference runtime completes a workflow
// skillpm started, it updates control and leaves the snapshot fields as
// they were; status is read from control, as the reference reads it.
func TestStatusReadsControl(t *testing.T) {
	h := newHookEnv(t)
	mustState(t)(h.r.Init(context.Background(), h.loc, "fix", "Fix it", InitOptions{}))
	data, err := os.ReadFile(h.loc.Path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["status"] != StatusRunning {
		t.Fatalf("snapshot status after init: %v", m["status"])
	}
	c := m["control"].(map[string]any)
	c["status"] = StatusCompleted
	for _, s := range c["steps"].(map[string]any) {
		s.(map[string]any)["status"] = StatusCompleted
	}
	out, _ := json.Marshal(m)
	if err := os.WriteFile(h.loc.Path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ReadState(h.loc.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusCompleted || st.StopPolicy != StopAllow {
		t.Errorf("status %s, stop policy %s; want completed, allow (control.status is completed)", st.Status, st.StopPolicy)
	}
}
