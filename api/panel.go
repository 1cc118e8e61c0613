package api

import (
	"embed"
	"io/fs"
	"net/http"
)

// panelFiles is the skills panel: plain HTML, CSS and JS, no build step.
//
//go:embed panel/index.html panel/panel.css panel/panel.js
var panelFiles embed.FS

// panelHandler serves the panel's files; "/" is index.html.
func panelHandler() http.Handler {
	sub, err := fs.Sub(panelFiles, "panel")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return http.FileServerFS(sub)
}
