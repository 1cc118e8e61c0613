package engine

import (
	"testing"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/resolve"
)

// TestPlacement: --link (Target.Placement) wins over the manifest's
// link:, which wins over the configuration's; with none of them an
// install keeps each root's mode.
func TestPlacement(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name       string
		t          Target
		m          *resolve.Manifest
		configured *bool
		want       install.Placement
	}{
		{"nothing said", Target{}, nil, nil, install.PlaceAuto},
		{"configured", Target{}, nil, &yes, install.PlaceLink},
		{"configured copies", Target{}, nil, &no, install.PlaceCopy},
		{"manifest over configuration", Target{}, &resolve.Manifest{Link: &no}, &yes, install.PlaceCopy},
		{"manifest without link:", Target{}, &resolve.Manifest{}, &yes, install.PlaceLink},
		{"flag over manifest", Target{Placement: install.PlaceLink}, &resolve.Manifest{Link: &no}, &no, install.PlaceLink},
	}
	for _, c := range cases {
		if got := placement(c.t, c.m, c.configured); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
