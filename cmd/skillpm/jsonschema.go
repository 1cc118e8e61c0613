package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/skillpm/skillpm/internal/jsonkeys"
	"github.com/skillpm/skillpm/pkg/errdef"
)

// jsonSchemaVersion is the version of the JSON each command prints with
// --output json; a change that removes or renames a key raises it (the
// list is in docs/json.md).
const jsonSchemaVersion = 1

// schemaOf names the schema of a command's JSON output, as its "schema"
// key carries it: "skillpm.outdated/v1".
func schemaOf(command string) string {
	return "skillpm." + command + "/v" + string(rune('0'+jsonSchemaVersion))
}

// schemaCommand is the command a document's schema is named after: the
// top-level command (policy check prints skillpm.policy/v1), cache's
// subcommands with it (skillpm.cache.prune/v1), index as search (one
// document shape) and run as asf.
func schemaCommand(path string) string {
	words := strings.Fields(path)
	if len(words) > 0 && words[0] == "skillpm" {
		words = words[1:]
	}
	if len(words) == 0 {
		return "skillpm"
	}
	switch words[0] {
	case "cache":
		return strings.Join(words, ".")
	case "index":
		return "search"
	case "run":
		return "asf"
	}
	return words[0]
}

// writeJSON prints v on stdout as writeJSON does, with a "schema" key
// naming the running command's schema when v is an object without one:
// every JSON document carries its schema.
func (g *globals) writeJSON(v any) error {
	norm, err := snakeKeys(v)
	if err != nil {
		return err
	}
	if m, ok := norm.(map[string]any); ok {
		if _, has := m["schema"]; !has {
			m["schema"] = schemaOf(schemaCommand(g.command))
		}
	}
	return writeJSON(g.stdout, norm)
}

// snakeKeys returns v as generic JSON with skillpm's keys in snake_case
// (jsonkeys.Snake, which the HTTP API writes through too).
func snakeKeys(v any) (any, error) { return jsonkeys.Snake(v) }

// jsonRequested reports whether the arguments ask for JSON output, for
// errors raised before the flags are parsed (an unknown command).
func jsonRequested(args []string) bool {
	for i, a := range args {
		if a == "--output=json" || a == "-ojson" || a == "-o=json" || ((a == "--output" || a == "-o") && i+1 < len(args) && args[i+1] == "json") {
			return true
		}
	}
	return false
}

// errorJSON is the error object --output json prints on stderr.
type errorJSON struct {
	Error struct {
		Class   string `json:"class"`
		Code    int    `json:"code"`
		Message string `json:"message"`
		Hint    string `json:"hint,omitempty"`
	} `json:"error"`
}

// writeErrorJSON prints a failure of class as {"error": {"class", "code",
// "message", "hint"}}: the message is the first paragraph, the hint what
// follows it (a solver's explanation, where skillpm looked, what to try).
func writeErrorJSON(w io.Writer, class errdef.Class, msg string) {
	var e errorJSON
	e.Error.Class, e.Error.Code = class.String(), class.ExitCode()
	e.Error.Message, e.Error.Hint, _ = strings.Cut(msg, "\n\n")
	e.Error.Hint = strings.TrimSpace(e.Error.Hint)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e)
}
