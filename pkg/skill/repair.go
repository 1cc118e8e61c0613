package skill

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxRepairs bounds the repair loop; a file needing more is not a typo.
const maxRepairs = 8

var (
	repairErrLine = regexp.MustCompile(`line (\d+)`)
	// topScalar is a top-level "key: value" line with the value on it.
	topScalar = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+(\S.*)$`)
)

// Repair is one frontmatter value RepairYAML quoted.
type Repair struct {
	// Line is the file line of the key.
	Line int
	// Key is the top-level key; Value the value as YAML now reads it.
	Key, Value string
}

// RepairYAML makes a frontmatter that does not parse parse, when the only
// problem is top-level scalars written without quotes that YAML reads as
// something else (an unquoted ": ", a value starting with [ or @). The YAML
// parser points at the line; that line's value (with its continuation
// lines, folded as YAML folds a plain scalar) is re-emitted by yaml.v3 as a
// double-quoted string, and the text is parsed again. A rewrite is kept only
// when the parser's error moves past it. metadata is never rewritten: its
// structure matters, so a broken metadata is reported instead.
func RepairYAML(front string, frontLine int) (string, []Repair, error) {
	var repairs []Repair
	for range maxRepairs {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(front), &n)
		if err == nil {
			return front, repairs, nil
		}
		at := repairErrAt(err)
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
			if err2 != nil && repairErrAt(err2) <= at {
				continue
			}
			r.Line = frontLine + cand - 1
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

func repairErrAt(err error) int {
	m := repairErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// requote rewrites line i (1-based) of lines, a top-level plain scalar, as a
// quoted scalar emitted by yaml.v3.
func requote(lines []string, i int) (string, Repair, bool) {
	if i < 1 || i > len(lines) {
		return "", Repair{}, false
	}
	m := topScalar.FindStringSubmatch(strings.TrimRight(lines[i-1], "\n"))
	if m == nil {
		return "", Repair{}, false
	}
	key, first := m[1], strings.TrimRight(m[2], " \t")
	if key == "metadata" || strings.ContainsAny(first[:1], `"'|>&*!%#`) {
		return "", Repair{}, false
	}
	// Text that merely starts with a bracket ("[date] [reason]") has them
	// balanced; an unbalanced one is a broken list or mapping, not text.
	if (first[0] == '[' || first[0] == '{') &&
		(strings.Count(first, "[") != strings.Count(first, "]") || strings.Count(first, "{") != strings.Count(first, "}")) {
		return "", Repair{}, false
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
		return "", Repair{}, false
	}
	var b strings.Builder
	for _, l := range lines[:i-1] {
		b.WriteString(l)
	}
	b.Write(out)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return b.String(), Repair{Key: key, Value: value}, true
}
