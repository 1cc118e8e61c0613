package treesitter

import (
	"embed"
	"io/fs"
)

// precompiledFiles is the compiled code of the modules for linux/amd64
// (see precompiled.go).
//
//go:embed precompiled/linux_amd64
var precompiledFiles embed.FS

// precompiled returns this platform's precompiled directory.
func precompiled() fs.FS {
	sub, err := fs.Sub(precompiledFiles, "precompiled/linux_amd64")
	if err != nil {
		return nil
	}
	return sub
}
