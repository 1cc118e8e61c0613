package treesitter

import (
	"context"
	"testing"
)

// FuzzParse: any bytes in any grammar give a well-formed tree (parents
// before children, spans inside the source) or ErrParse, never a crash.
func FuzzParse(f *testing.F) {
	f.Add(uint8(Python), []byte("x = f\"{f'{y}'}\"\n"))
	f.Add(uint8(JavaScript), []byte("const a = <p>Tom & Jerry {x} &</p>;\n"))
	f.Add(uint8(TypeScript), []byte("function f<T>(x: T): T { return x }\n"))
	f.Add(uint8(TSX), []byte("export const A = () => <>&amp; & &&</>;\n"))
	f.Add(uint8(Python), []byte("((((((((((\x00\xff"))
	var p Parser
	f.Cleanup(func() { p.Close() })
	f.Fuzz(func(t *testing.T, lang uint8, src []byte) {
		l := Language(lang % uint8(numLanguages))
		tr, err := p.Parse(context.Background(), l, src, 10000)
		if err != nil {
			t.Fatalf("%v", err)
		}
		for i, n := range tr.Nodes {
			if (i == 0) != (n.Parent == -1) || n.Parent >= i {
				t.Fatalf("node %d has parent %d", i, n.Parent)
			}
			if n.Start < 0 || n.Start > n.End || n.End > len(src) {
				t.Fatalf("node %d spans %d..%d of %d bytes", i, n.Start, n.End, len(src))
			}
			if n.Parent >= 0 {
				if par := tr.Nodes[n.Parent]; n.Start < par.Start || n.End > par.End {
					t.Fatalf("node %d (%d..%d) outside its parent (%d..%d)", i, n.Start, n.End, par.Start, par.End)
				}
			}
		}
	})
}
