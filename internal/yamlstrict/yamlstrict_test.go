package yamlstrict

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func mapping(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// walk renders what Pairs reports: "k=v" for a pair, "!kind@line:col" for
// a problem.
func walk(t *testing.T, m Mapping, src string) string {
	t.Helper()
	var out []string
	err := m.Pairs(mapping(t, src), func(k, v *yaml.Node) error {
		out = append(out, k.Value+"="+v.Value)
		return nil
	}, func(p Problem) error {
		s := fmt.Sprintf("!%d@%d:%d", p.Kind, p.Node.Line, p.Node.Column)
		if p.First != nil {
			s += fmt.Sprintf("(first %d)", p.First.Line)
		}
		if p.Key != nil {
			s += "(key " + p.Key.Value + ")"
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func TestPairs(t *testing.T) {
	known := Mapping{Known: []string{"a", "b"}}
	follow := Mapping{Known: []string{"a", "b"}, FollowAliases: true}
	for _, tc := range []struct {
		name string
		m    Mapping
		src  string
		want string
	}{
		{"plain", known, "a: 1\nb: 2\n", "a=1 b=2"},
		{"any key", Mapping{}, "z: 1\n", "z=1"},
		{"unknown", known, "a: 1\nc: 2\n", fmt.Sprintf("a=1 !%d@2:1", Unknown)},
		{"duplicate", known, "a: 1\nb: 2\na: 3\n", fmt.Sprintf("a=1 b=2 !%d@3:1(first 1)", Duplicate)},
		// A key both unknown and repeated is a duplicate the second time.
		{"duplicate before unknown", known, "c: 1\nc: 2\n", fmt.Sprintf("!%d@1:1 !%d@2:1(first 1)", Unknown, Duplicate)},
		{"merge key", known, "a: &x {b: 1}\n<<: *x\n", fmt.Sprintf("!%d@1:4(key a) !%d@2:1", Anchor, MergeKey)},
		{"alias value refused", known, "a: &x 1\nb: *x\n", fmt.Sprintf("!%d@1:4(key a) !%d@2:4(key b)", Anchor, Alias)},
		{"alias value followed", follow, "a: &x 1\nb: *x\n", "a=1 b=1"},
		{"key not scalar", Mapping{}, "[a]: 1\n", fmt.Sprintf("!%d@1:1", KeyNotScalar)},
		{"alias key", follow, "a: &k b\n*k : 2\n", fmt.Sprintf("a=b !%d@2:1", KeyNotScalar)},
		{"anchored key", follow, "&k a: 1\n", fmt.Sprintf("!%d@1:1", Anchor)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := walk(t, tc.m, tc.src); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestPairsStops(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := Mapping{Known: []string{"a"}}.Pairs(mapping(t, "x: 1\na: 2\n"), func(_, _ *yaml.Node) error {
		calls++
		return nil
	}, func(Problem) error { return stop })
	if !errors.Is(err, stop) || calls != 0 {
		t.Fatalf("err %v after %d pairs, want stop after 0", err, calls)
	}
}

func TestCheck(t *testing.T) {
	src := "a: 1\nb:\n  c: 1\n  c: 2\n  d: [&x 1, *x]\n<<: {e: 1}\nf: [{g: 1, g: 2}]\n"
	var got []string
	Check(mapping(t, src), func(p Problem) {
		got = append(got, fmt.Sprintf("%d@%d:%d", p.Kind, p.Node.Line, p.Node.Column))
	})
	want := []string{
		fmt.Sprintf("%d@4:3", Duplicate),
		fmt.Sprintf("%d@5:7", Anchor),
		fmt.Sprintf("%d@5:13", Alias),
		fmt.Sprintf("%d@6:1", MergeKey),
		fmt.Sprintf("%d@7:12", Duplicate),
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestErrorLine(t *testing.T) {
	var v any
	err := yaml.Unmarshal([]byte("a: 1\nb: [\n"), &v)
	line, msg := ErrorLine(err)
	if line != 2 || msg == "" || strings.HasPrefix(msg, "yaml:") {
		t.Errorf("ErrorLine(%q) = %d, %q", err, line, msg)
	}
	line, msg = ErrorLine(errors.New("yaml: unknown anchor 'x' referenced"))
	if line != 0 || msg != "unknown anchor 'x' referenced" {
		t.Errorf("got %d, %q", line, msg)
	}
}
