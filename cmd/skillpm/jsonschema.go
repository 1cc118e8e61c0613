package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode"

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

// snakeKeys returns v as generic JSON with skillpm's keys in snake_case:
// "dryRun" and "DryRun" become "dry_run". Keys that are data rather than
// field names are left as they are: anything but plain camel case (skill
// names, permissions, environment variables such as XDG_DATA_HOME). So
// are the keys of standard documents skillpm passes through (OCI
// descriptors and manifests, Sigstore bundles: objects with a mediaType
// or schemaVersion), whose key names their own specifications fix.
func snakeKeys(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return nil, err
	}
	return snakeValue(g), nil
}

func snakeValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["mediaType"]; ok {
			return t
		}
		if _, ok := t["schemaVersion"]; ok {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[snakeKey(k)] = snakeValue(e)
		}
		return out
	case []any:
		for i := range t {
			t[i] = snakeValue(t[i])
		}
		return t
	}
	return v
}

// snakeKey converts a camel-case field name ("dryRun", "ShadowedBy",
// "Name") to snake_case and returns any other key unchanged.
func snakeKey(k string) string {
	upper, lower := false, false
	for _, r := range k {
		switch {
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsDigit(r):
		default:
			return k // has "-", "_", ":" ...: data, not a field name
		}
	}
	if !upper || !lower {
		return k
	}
	var b strings.Builder
	rs := []rune(k)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// A new word starts at an upper-case letter after a lower-case
			// one, or before a lower-case one inside a run ("HTTPServer").
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// jsonRequested reports whether the arguments ask for JSON output, for
// errors raised before the flags are parsed (an unknown command).
func jsonRequested(args []string) bool {
	for i, a := range args {
		if a == "--output=json" || (a == "--output" && i+1 < len(args) && args[i+1] == "json") {
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
