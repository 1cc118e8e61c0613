package skillpm_test

import (
	"context"
	"testing"

	"github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/sign"
)

// TestBuildIndex: the embedded registry's search and sparse indexes list
// the published skill and are signed; building again signs nothing new.
func TestBuildIndex(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	if _, err := e.Publish(ctx, skillpm.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	opts := &sign.SignOptions{Key: key.Key}
	res, err := e.BuildIndex(ctx, skillpm.IndexRequest{Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skills != 1 || res.Descriptor.Digest == "" || res.Sparse == nil || res.Sparse.Skills != 1 || len(res.Sparse.Changed) != 1 {
		t.Fatalf("BuildIndex = %+v; want one skill in both indexes", res)
	}
	if res.Signed == nil || res.Signed.Unchanged || res.SparseSigned == nil || res.SparseSigned.Unchanged {
		t.Errorf("signatures = %+v, %+v; want both indexes newly signed", res.Signed, res.SparseSigned)
	}
	again, err := e.BuildIndex(ctx, skillpm.IndexRequest{Source: "embedded", Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if again.Descriptor.Digest != res.Descriptor.Digest || !again.Signed.Unchanged || !again.SparseSigned.Unchanged {
		t.Errorf("again: %s (was %s), signed unchanged %v/%v; want the same index, nothing signed again",
			again.Descriptor.Digest, res.Descriptor.Digest, again.Signed.Unchanged, again.SparseSigned.Unchanged)
	}
}
