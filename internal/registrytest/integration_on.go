//go:build integration

package registrytest

// Integration is true in a build with -tags integration (make test): the
// tests run against the real parts (the distribution registry binary,
// oras, chromium), which must be installed; the cosign CLI only with -tags cosign (cosign_on.go).
const Integration = true
