//go:build !cosign

package registrytest

// Cosign is false without -tags cosign: the cosign interop tests are left
// to make interop (see cosign_on.go), which CI runs after make test.
const Cosign = false
