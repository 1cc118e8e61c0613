package buildinfo

import "testing"

// TestRead: an unstamped test binary has no module version, so it is a
// "devel" build, and Tool names it so.
func TestRead(t *testing.T) {
	info := Read()
	if info.Version != "devel" || info.Go == "" || info.Platform == "" {
		t.Errorf("Read() = %+v, want a devel build with its toolchain and platform", info)
	}
	if got := Tool(); got != "skillpm devel" {
		t.Errorf("Tool() = %q, want %q", got, "skillpm devel")
	}
}
