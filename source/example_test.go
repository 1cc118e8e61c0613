package source_test

import (
	"fmt"

	"github.com/skillpm/skillpm/source"
)

func ExampleParseRef() {
	for _, s := range []string{
		"web-research@^1",
		"ghcr.io/acme/skills/web-research@~1.4",
		"oci-layout:/srv/bundle/web-research@1.2.3",
		"./my-skill",
		"embedded/web-research",
		"github:acme/skills@v1",
	} {
		r, err := source.ParseRef(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: source=%q name=%q selector=%q\n", r.Kind, r.Source, r.Name, r.Selector)
	}
	// Output:
	// name: source="" name="web-research" selector="^1"
	// remote: source="ghcr.io/acme/skills" name="web-research" selector="~1.4"
	// oci-layout: source="/srv/bundle" name="web-research" selector="1.2.3"
	// directory: source="./my-skill" name="" selector=""
	// embedded: source="embedded" name="web-research" selector=""
	// git: source="github:acme/skills@v1" name="" selector=""
}
