package skill

import (
	"encoding/json"
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestTierOrder(t *testing.T) {
	if got := Tiers(); len(got) != 3 || got[0] != Experimental || got[2] != Verified {
		t.Fatalf("Tiers() = %v", got)
	}
	for i, a := range Tiers() {
		if a.Rank() != i || !a.Valid() {
			t.Errorf("%s: rank %d valid %v", a, a.Rank(), a.Valid())
		}
		for j, b := range Tiers() {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
			if got := a.AtLeast(b); got != (i >= j) {
				t.Errorf("%s.AtLeast(%s) = %v", a, b, got)
			}
		}
	}
	for _, bad := range []Tier{"", "gold", "Verified", "unverified"} {
		if bad.Valid() || bad.Rank() != -1 || bad.Compare(Experimental) != -1 {
			t.Errorf("%q: valid %v rank %d", bad, bad.Valid(), bad.Rank())
		}
	}
	if !Experimental.AtLeast("") || Tier("gold").AtLeast(Experimental) {
		t.Error("AtLeast: no minimum admits every tier; an unknown tier meets no minimum")
	}
	if Verified.Lower(Community) != Community || Community.Lower(Verified) != Community {
		t.Error("Lower")
	}
}

func TestParseTier(t *testing.T) {
	if tr, err := ParseTier("community"); err != nil || tr != Community {
		t.Errorf("ParseTier(community) = %q, %v", tr, err)
	}
	if _, err := ParseTier("gold"); !errors.Is(err, ErrUnknownTier) {
		t.Errorf("ParseTier(gold) = %v, want ErrUnknownTier", err)
	}
}

// TestTierEncoding: a Tier encodes as its bare name, so the JSON and YAML
// that held plain strings read and write the same.
func TestTierEncoding(t *testing.T) {
	type doc struct {
		Tier Tier `json:"tier" yaml:"tier"`
	}
	j, err := json.Marshal(doc{Verified})
	if err != nil || string(j) != `{"tier":"verified"}` {
		t.Errorf("json = %s, %v", j, err)
	}
	var d doc
	if err := yaml.Unmarshal([]byte("tier: community\n"), &d); err != nil || d.Tier != Community {
		t.Errorf("yaml = %+v, %v", d, err)
	}
}
