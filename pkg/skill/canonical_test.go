package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// roundTrip checks that frontmatter -> canonical JSON -> Skill -> canonical
// JSON loses nothing and that the typed fields survive.
func roundTrip(t *testing.T, s *Skill) {
	t.Helper()
	j1, err := s.CanonicalJSON()
	if err != nil {
		t.Fatalf("%s: %v", s.File, err)
	}
	if !json.Valid(j1) {
		t.Fatalf("%s: invalid JSON %s", s.File, j1)
	}
	back, ds := ParseCanonicalJSON(j1)
	if back == nil {
		t.Fatalf("%s: canonical JSON does not parse back: %v\n%s", s.File, ds, j1)
	}
	j2, err := back.CanonicalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(j1, j2) {
		t.Fatalf("%s: round trip changed the JSON:\n%s\n%s", s.File, j1, j2)
	}
	if back.Name != s.Name || back.Description != s.Description || back.Version != s.Version ||
		!reflect.DeepEqual(back.Gaia.Permissions, s.Gaia.Permissions) ||
		!reflect.DeepEqual(back.Dependencies(), s.Dependencies()) ||
		back.Tier() != s.Tier() || len(back.Gaia.Tools) != len(s.Gaia.Tools) {
		t.Fatalf("%s: typed fields changed in the round trip", s.File)
	}
}

func TestCanonicalJSONExamples(t *testing.T) {
	s, ds := Parse("x/SKILL.md", []byte(`---
name: x
description: "<b>&</b> keeps HTML characters"
version: "1.10.0"
when: 2024-01-02
ratio: 1.50
big: 0x1F
metadata:
  gaia: {permissions: [network:read]}
  other: {z: 1, a: [true, null, ~]}
---
`), Options{})
	if s == nil {
		t.Fatal(ds)
	}
	got, err := s.CanonicalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"big":"0x1F","description":"<b>&</b> keeps HTML characters","metadata":{"gaia":{"permissions":["network:read"]},"other":{"a":[true,null,null],"z":1}},"name":"x","ratio":1.50,"version":"1.10.0","when":"2024-01-02"}`
	if string(got) != want {
		t.Errorf("canonical JSON\n got %s\nwant %s", got, want)
	}
	roundTrip(t, s)
}

func TestCanonicalJSONCorpus(t *testing.T) {
	n := 0
	for _, dir := range append(corpusSkills(t), testdata+"/skills/web-search", testdata+"/asf/fix") {
		s, _ := Load(context.Background(), dir, Options{Mode: Lenient})
		if s == nil {
			continue
		}
		roundTrip(t, s)
		n++
	}
	t.Logf("%d skills round-tripped", n)
}
