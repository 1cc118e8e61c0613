package sign

import (
	"context"
	"crypto"
	"testing"
)

// BenchmarkVerify100 verifies a batch of 100 ECDSA P-256 key signatures of
// one manifest, as install does for a skill's referrers. ns/sig is the
// figure to watch (target: under 2 ms on one core, -cpu 1).
func BenchmarkVerify100(b *testing.B) {
	kp := newKey(b, ECDSAP256)
	d := testDigest(100)
	bundles := make([][]byte, 100)
	for i := range bundles {
		bundles[i] = signKey(b, kp.Key, d)
	}
	opts := VerifyOptions{PublicKeys: []crypto.PublicKey{kp.Key.Public()}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := VerifyAll(ctx, bundles, d, opts)
		if err != nil || len(res.Verified) != len(bundles) {
			b.Fatalf("verified %d of %d: %v %v", len(res.Verified), len(bundles), err, res.Failures)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bundles)), "ns/sig")
}
