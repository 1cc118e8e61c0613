//go:build !(linux && amd64)

package treesitter

import "io/fs"

// precompiled returns nil: no compiled code ships for this platform
// (see precompiled.go), so a cold cache compiles the modules.
func precompiled() fs.FS { return nil }
