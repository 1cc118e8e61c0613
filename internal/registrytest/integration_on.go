//go:build integration

package registrytest

// Integration is true in a build with -tags integration (make test): the
// tests run against the real parts (the distribution registry binary,
// oras, cosign, chromium), which must be installed.
const Integration = true
