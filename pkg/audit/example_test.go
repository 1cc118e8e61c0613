package audit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/skillpm/skillpm/pkg/audit"
)

func ExampleScan() {
	rep, err := audit.Scan(context.Background(), "../../testdata/audit/hostile/instr-exfil", audit.Options{Tool: "skillpm 0.0.0-example"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range rep.Findings {
		fmt.Println(f)
	}
	for _, tier := range []string{"experimental", "community", "verified"} {
		v, err := rep.Verdict(tier)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tier, v.Decision)
	}
	// Output:
	// SKILL.md:11:8: high: [AUD-INSTR-CREDENTIALS] tells the model to read or collect credentials
	// SKILL.md:11:8: critical: [AUD-INSTR-EXFIL] tells the model to send credentials or private files somewhere
	// experimental block
	// community block
	// verified block
}

func ExampleReport_Verdict() {
	rep, err := audit.Scan(context.Background(), "../../testdata/audit/review/fenced-injection", audit.Options{Tool: "skillpm 0.0.0-example"})
	if err != nil {
		log.Fatal(err)
	}
	v, err := rep.Verdict("") // the tier the skill claims: community
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Tier, v.Decision)
	for _, r := range v.Reasons {
		fmt.Println(r)
	}
	// Output:
	// community review
	// 1 finding (high needs review at community): AUD-INSTR-OVERRIDE at SKILL.md:14:1
}

func ExampleReport_Digest() {
	rep, err := audit.Scan(context.Background(), "../../testdata/audit/clean/web-fetch", audit.Options{Tool: "skillpm 0.0.0-example"})
	if err != nil {
		log.Fatal(err)
	}
	d1, _ := rep.Digest()
	again, _ := audit.Scan(context.Background(), "../../testdata/audit/clean/web-fetch", audit.Options{Tool: "skillpm 0.0.0-example"})
	d2, _ := again.Digest()
	fmt.Println(len(rep.Findings), d1 == d2)
	// Output:
	// 0 true
}
