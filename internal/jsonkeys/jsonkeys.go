// Package jsonkeys gives skillpm's machine output its key style: every
// key of skillpm's own in snake_case (docs/json.md). The CLI's
// --output json and the HTTP API both write through it, so the same
// object has the same keys on both surfaces; the Go types keep their
// camel-case tags for the files skillpm keeps on disk.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Snake returns v as generic JSON with skillpm's keys in snake_case:
// "dryRun" and "DryRun" become "dry_run". Keys that are data rather than
// field names are left as they are: anything but plain camel case (skill
// names, permissions, environment variables such as XDG_DATA_HOME). So
// are the keys of standard documents skillpm passes through (OCI
// descriptors and manifests, Sigstore bundles: objects with a mediaType
// or schemaVersion), whose key names their own specifications fix.
// Numbers keep their digits (json.Number).
func Snake(v any) (any, error) {
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
			out[Key(k)] = snakeValue(e)
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

// Key converts a camel-case field name ("dryRun", "ShadowedBy", "Name")
// to snake_case and returns any other key unchanged.
func Key(k string) string {
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
