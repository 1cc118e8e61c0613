package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONLines: in JSON mode whatever a command writes to stderr comes
// out as JSON lines: JSON passes, a warning keeps its level, a partial
// line waits for its end (or Flush).
func TestJSONLines(t *testing.T) {
	var b bytes.Buffer
	j := &jsonLines{w: &b}
	_, _ = j.Write([]byte("warning: disk is sl"))
	_, _ = j.Write([]byte("ow\n{\"error\":{\"class\":\"usage\"}}\nUsername: "))
	j.Flush()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %q", len(lines), b.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %q is not JSON", l)
		}
	}
	if !strings.Contains(lines[0], `"level":"warning","message":"disk is slow"`) || lines[1] != `{"error":{"class":"usage"}}` || !strings.Contains(lines[2], `"message":"Username: "`) {
		t.Errorf("lines %q", lines)
	}
}

// TestColorAndLevels: --color and NO_COLOR decide colour; SKILLPM_LOG
// names levels; a warning is coloured only with colour on; -q silences
// warnings and -v shows decisions.
func TestColorAndLevels(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var pipe bytes.Buffer
	for _, tc := range []struct {
		mode string
		env  func(string) string
		want bool
	}{
		{"always", env("NO_COLOR", "1"), true},
		{"never", env(), false},
		{"auto", env(), false}, // a pipe
	} {
		if got, err := useColor(tc.mode, &pipe, tc.env); err != nil || got != tc.want {
			t.Errorf("useColor(%s) = %v, %v; want %v", tc.mode, got, err, tc.want)
		}
	}
	if _, err := useColor("sometimes", &pipe, env()); err == nil {
		t.Error("--color=sometimes accepted")
	}
	for v, want := range map[string]int{"": levelNormal, "debug": levelVerbose, "TRACE": levelTrace} {
		if got, ok := logLevel(v); !ok || got != want {
			t.Errorf("logLevel(%q) = %d, %v", v, got, ok)
		}
	}
	if _, ok := logLevel("loud"); ok {
		t.Error("SKILLPM_LOG=loud accepted")
	}
	var errb bytes.Buffer
	o := &output{stderr: &errb, color: true, level: levelVerbose}
	o.Warn("w")
	o.Decision("d")
	o.Trace("t")
	if got := errb.String(); got != sgrYellow+sgrBold+"warning: "+sgrReset+"w\n"+sgrDim+"debug: "+sgrReset+"d\n" {
		t.Errorf("stderr %q", got)
	}
	errb.Reset()
	o = &output{stderr: &errb, level: levelQuiet}
	o.Warn("w")
	o.Note("n")
	if errb.Len() != 0 {
		t.Errorf("-q printed %q", errb.String())
	}
	if got := (&output{width: 10}).fit("0123456789abc"); got != "0123456..." {
		t.Errorf("fit = %q", got)
	}
}
