// Package depcheck holds the module's layering as a test: which packages
// may import which. It has no code; see depcheck_test.go for the layers.
package depcheck
