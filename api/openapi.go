package api

import (
	"bytes"
	_ "embed"
	"net/http"
)

// openAPIDoc describes every endpoint; a test validates the server's real
// responses against it, so it cannot drift from what the server sends.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3 document of the API, as GET
// /api/openapi.json serves it.
func OpenAPI() []byte { return bytes.Clone(openAPIDoc) }

// handleOpenAPI serves the document without a token: it describes the
// API and holds nothing about the machine.
func (s *Server) handleOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(openAPIDoc)
}
