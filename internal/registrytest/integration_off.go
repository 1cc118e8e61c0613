//go:build !integration

package registrytest

// Integration is false in a plain `go test` build: registries are
// in-process (go-containerregistry's pkg/registry) and the tests that need
// an outside tool are not built (their files carry the integration build
// tag), so `go test ./...` passes on a machine with nothing but Go. make
// test builds with -tags integration.
const Integration = false
