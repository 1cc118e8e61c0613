package main

import "testing"

func TestTermText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"a\x1b]52;c;eA==\x07b", `a\x1b]52;c;eA==\x07b`},
		{"line\nnext\ttab\r", `line\nnext\ttab\r`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"del\x7f", `del\x7f`},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
		{"bad \xff utf8", "bad \ufffd utf8"},
	} {
		if got := termText(tc.in); got != tc.want {
			t.Errorf("termText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := termLines("one \x1b]8;;x\x1b\\\ntwo\x07"), "one \\x1b]8;;x\\x1b\\\ntwo\\x07"; got != want {
		t.Errorf("termLines = %q, want %q", got, want)
	}
	if got := termTrim("abc\x1bdef", 6); got != `abc...` {
		t.Errorf("termTrim = %q", got)
	}
}
