package migrate

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxRepairs bounds the repair loop; a file needing more is not a typo.
const maxRepairs = 8

var (
	yamlErrLine = regexp.MustCompile(`line (\d+)`)
	// topScalar is a top-level "key: value" line with the value on it.
	topScalar = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+(\S.*)$`)
)

// repair is one frontmatter line rewritten by repairYAML.
type repair struct {
	line  int // file line
	key   string
	value string
}

// repairYAML makes a frontmatter that does not parse parse, when the only
// problem is top-level scalars written without quotes that YAML reads as
// something else (an unquoted ": ", a value starting with [ or @). The YAML
// parser points at the line; that line's value (with its continuation
// lines, folded as YAML folds a plain scalar) is re-emitted by yaml.v3 as a
// double-quoted string, and the text is parsed again. A rewrite is kept only
// when the parser's error moves past it. metadata is never rewritten: its
// structure matters, so a broken metadata is reported instead.
func repairYAML(front string, frontLine int) (string, []repair, error) {
	var repairs []repair
	for range maxRepairs {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(front), &n)
		if err == nil {
			return front, repairs, nil
		}
		at := errLine(err)
		if at == 0 {
			return "", nil, err
		}
		lines := strings.SplitAfter(front, "\n")
		fixed := false
		// The parser sometimes blames the line before the culprit.
		for _, cand := range []int{at, at + 1} {
			text, r, ok := requote(lines, cand)
			if !ok {
				continue
			}
			var m yaml.Node
			err2 := yaml.Unmarshal([]byte(text), &m)
			if err2 != nil && errLine(err2) <= at {
				continue
			}
			r.line = frontLine + cand - 1
			repairs = append(repairs, r)
			front, fixed = text, true
			break
		}
		if !fixed {
			return "", nil, err
		}
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(front), &n); err != nil {
		return "", nil, err
	}
	return front, repairs, nil
}

func errLine(err error) int {
	m := yamlErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// requote rewrites line i (1-based) of lines, a top-level plain scalar, as a
// quoted scalar emitted by yaml.v3.
func requote(lines []string, i int) (string, repair, bool) {
	if i < 1 || i > len(lines) {
		return "", repair{}, false
	}
	m := topScalar.FindStringSubmatch(strings.TrimRight(lines[i-1], "\n"))
	if m == nil {
		return "", repair{}, false
	}
	key, first := m[1], strings.TrimRight(m[2], " \t")
	if key == "metadata" || strings.ContainsAny(first[:1], `"'|>&*!%#`) {
		return "", repair{}, false
	}
	// Text that merely starts with a bracket ("[date] [reason]") has them
	// balanced; an unbalanced one is a broken list or mapping, not text.
	if (first[0] == '[' || first[0] == '{') &&
		(strings.Count(first, "[") != strings.Count(first, "]") || strings.Count(first, "{") != strings.Count(first, "}")) {
		return "", repair{}, false
	}
	// Continuation lines of a plain scalar are the indented ones that
	// follow; YAML folds them with a space, and a blank line into "\n".
	parts := []string{first}
	end := i // last line consumed (1-based)
	blanks := 0
	for j := i; j < len(lines); j++ {
		l := strings.TrimRight(lines[j], "\n")
		if strings.TrimSpace(l) == "" {
			blanks++
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			break
		}
		sep := " "
		if blanks > 0 {
			sep = strings.Repeat("\n", blanks)
		}
		parts = append(parts, sep, strings.TrimSpace(l))
		blanks = 0
		end = j + 1
	}
	value := strings.Join(parts, "")
	out, err := yaml.Marshal(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Style: yaml.DoubleQuotedStyle},
	}})
	if err != nil {
		return "", repair{}, false
	}
	var b strings.Builder
	for _, l := range lines[:i-1] {
		b.WriteString(l)
	}
	b.Write(out)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return b.String(), repair{key: key, value: value}, true
}

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
