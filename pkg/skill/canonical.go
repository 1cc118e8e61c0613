package skill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// toValue converts a YAML node into plain Go values for JSON: maps with
// string keys, slices, strings, bools, nil and json.Number. Numbers keep the
// text the author wrote when it is valid JSON (so 1.10 stays 1.10); other
// number spellings and timestamps stay the string that was written.
func toValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return toValue(n.Content[0])
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[keyText(n.Content[i])] = toValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, toValue(c))
		}
		return out
	case yaml.AliasNode:
		if n.Alias != nil {
			return toValue(n.Alias)
		}
		return nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	case "!!int", "!!float":
		// A number written as JSON writes it stays a number; YAML-only
		// spellings (0x1F, 0o17, 007, 1_000, .inf) stay the text that was
		// written, so fields read as text (a name of 000) survive a round trip.
		if jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value)
		}
	}
	// Strings, timestamps, binary, infinities: the text as written.
	return n.Value
}

// keyText renders a mapping key. Non-scalar keys are legal YAML but have no
// JSON form; they are rendered as their YAML text.
func keyText(k *yaml.Node) string {
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	b, err := yaml.Marshal(k)
	if err != nil {
		return fmt.Sprint(k.Value)
	}
	return string(bytes.TrimSpace(b))
}

// CanonicalJSON renders the frontmatter as canonical JSON: object keys
// sorted, no insignificant white space, no HTML escaping. It is the config
// blob of the skill's OCI artifact and the JSON that `skillpm info` prints.
// Every field is kept, unknown ones and foreign metadata namespaces included.
func (s *Skill) CanonicalJSON() ([]byte, error) {
	if s.Node == nil {
		return []byte("{}"), nil
	}
	return CanonicalJSON(toValue(s.Node))
}

// CanonicalJSON renders a plain value (maps, slices, strings, json.Number,
// numbers, bools, nil) canonically.
func CanonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, x)
	case json.Number:
		buf.WriteString(string(x))
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case nil:
		buf.WriteString("null")
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("canonical JSON: %v has no JSON form", x)
		}
		buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	default:
		return fmt.Errorf("canonical JSON: unsupported value of type %T", v)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // strings always encode
	buf.Truncate(buf.Len() - 1)
}

// ParseCanonicalJSON reads a frontmatter rendered by CanonicalJSON (the
// artifact config blob) back into a Skill with no directory. JSON is YAML,
// so the same decoder serves both and nothing is lost between them.
func ParseCanonicalJSON(data []byte) (*Skill, Diagnostics) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		msg := "config is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, Diagnostics{{Severity: Error, Code: CodeFrontmatterNotMap, File: "config.json", Message: msg}}
	}
	s := &Skill{File: "config.json", Node: root.Content[0]}
	c := &checker{file: s.File}
	c.decode(s)
	return s, finish(c.ds, Options{Mode: Lenient})
}
