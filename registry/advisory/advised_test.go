package advisory

import "testing"

// TestAdvisedText: the words doctor, install and resolution print for
// an advisory, with and without a severity and a summary.
func TestAdvisedText(t *testing.T) {
	for _, c := range []struct {
		a    Advised
		want string
	}{
		{Advised{Name: "n", Version: "1.0.0", ID: "SKILL-1", Kind: KindMalicious, Severity: "critical", Summary: "steals keys"},
			"n@1.0.0 is named by advisory SKILL-1 (malicious, critical): steals keys"},
		{Advised{Name: "n", Version: "1.0.0", ID: "SKILL-2", Kind: KindVulnerability},
			"n@1.0.0 is named by advisory SKILL-2 (vulnerability)"},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
