package engine_test

import (
	"context"
	"testing"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/sign"
)

// TestBuildIndex: the embedded registry's search and sparse indexes list
// the published skill and are signed; building again signs no new search
// index, and re-issues the sparse one (its freshness bound moves).
func TestBuildIndex(t *testing.T) {
	e, key, dir, _, done := exampleSetup()
	t.Cleanup(done)
	ctx := context.Background()
	if _, err := e.Publish(ctx, engine.PublishRequest{Dir: dir, Sign: &sign.SignOptions{Key: key.Key}}); err != nil {
		t.Fatal(err)
	}
	opts := &sign.SignOptions{Key: key.Key}
	res, err := e.BuildIndex(ctx, engine.BuildIndexRequest{Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skills != 1 || res.Descriptor.Digest == "" || res.Sparse == nil || res.Sparse.Skills != 1 || len(res.Sparse.Changed) != 1 {
		t.Fatalf("BuildIndex = %+v; want one skill in both indexes", res)
	}
	if res.Signed == nil || res.Signed.Unchanged || res.SparseSigned == nil || res.SparseSigned.Unchanged {
		t.Errorf("signatures = %+v, %+v; want both indexes newly signed", res.Signed, res.SparseSigned)
	}
	again, err := e.BuildIndex(ctx, engine.BuildIndexRequest{Sign: opts})
	if err != nil {
		t.Fatal(err)
	}
	if again.Descriptor.Digest != res.Descriptor.Digest || !again.Signed.Unchanged {
		t.Errorf("again: %s (was %s), signed unchanged %v; want the same search index, not signed again",
			again.Descriptor.Digest, res.Descriptor.Digest, again.Signed.Unchanged)
	}
	// The sparse index carries its issued-at time (to the second): built
	// again, it is re-issued and signed as it is, no document pushed.
	if again.SparseSigned == nil || len(again.Sparse.Changed) != 0 {
		t.Errorf("sparse index again: signed %+v, changed %v; want it signed, no document pushed", again.SparseSigned, again.Sparse.Changed)
	}
}
