//go:build cosign

package registrytest

// Cosign is true in a build with -tags cosign (make interop): the tests
// that run the real cosign CLI are built, and a missing cosign fails them.
// cosign is the one test tool whose build from source takes half an hour,
// so make test leaves these tests to make interop, which CI runs too.
const Cosign = true
