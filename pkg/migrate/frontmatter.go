package migrate

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// render writes SKILL.md: the frontmatter encoded by yaml.v3 between fences,
// then the body as it was read.
func render(top *yaml.Node, body []byte, crlf bool) ([]byte, error) {
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	if err := enc.Encode(top); err != nil {
		return nil, fmt.Errorf("encoding frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding frontmatter: %w", err)
	}
	var out bytes.Buffer
	out.WriteString("---\n")
	out.Write(y.Bytes())
	out.WriteString("---\n")
	b := out.Bytes()
	if crlf {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	}
	return append(b, body...), nil
}
