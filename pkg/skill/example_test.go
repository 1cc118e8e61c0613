package skill_test

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/pkg/skill"
)

func ExampleParse() {
	s, ds := skill.Parse("web-search/SKILL.md", []byte(`---
name: web-search
description: Search the web. Use for current events.
version: 1.0.0
metadata:
  gaia:
    permissions: [network:read:*.brave.com, shell:run]
---
# Web Search
`), skill.Options{})
	fmt.Println(s.Name, s.Version, s.Tier())
	for _, d := range ds {
		fmt.Println(d)
	}
	// Output:
	// web-search 1.0.0 experimental
	// web-search/SKILL.md:7:45: error: invalid permission "shell:run": unknown level "run" for shell [permission-invalid]
}

func ExampleLoad() {
	s, ds := skill.Load(context.Background(), "../../testdata/asf/fix", skill.Options{Mode: skill.Strict})
	fmt.Println(s.Name, "errors:", ds.HasErrors())
	for _, d := range s.Dependencies() {
		fmt.Println(d.Name, d.Range)
	}
	for _, c := range s.Execution.Calls {
		fmt.Println("call", c.Skill)
	}
	// Output:
	// fix errors: false
	// code ^1.0
	// diagnosis ^1.0
	// call diagnosis
	// call code
}

func ExampleSkill_CanonicalJSON() {
	s, _ := skill.Parse("SKILL.md", []byte("---\nname: a\ndescription: b\nmetadata: {x: {k: 1}}\n---\n"), skill.Options{})
	j, _ := s.CanonicalJSON()
	fmt.Println(string(j))
	// Output: {"description":"b","metadata":{"x":{"k":1}},"name":"a"}
}
