package audit

// acMatcher finds which of a fixed set of keywords occur in a text in one
// pass (Aho-Corasick, compiled to a DFA over bytes). ASCII letters are
// matched case-insensitively; keywords are lower case.
type acMatcher struct {
	// next is the DFA, one row of width classes per state: state s on a
	// byte of class k goes to next[s*width+k].
	next  []int32
	width int
	// class maps a byte to its column: each byte a keyword holds has its
	// own (an upper-case ASCII letter shares its lower case's), every
	// other byte shares column 0, on which no edge leaves any state.
	class [256]uint16
	out   [][]int32
	n     int
	lens  []int32 // the length of each keyword
}

func newACMatcher(words []string) *acMatcher {
	m := &acMatcher{n: len(words), lens: make([]int32, len(words)), width: 1}
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if c := w[i]; m.class[c] == 0 {
				m.class[c] = uint16(m.width)
				m.width++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	// The trie first, with sparse edges, then the DFA in one table of its
	// final size: growing a dense table of 256 columns a state at a time
	// copied all of it at every growth, most of the cost of building the
	// matcher in every process that audits.
	type edge struct {
		k  uint16
		to int32
	}
	kids := [][]edge{nil}
	out := [][]int32{nil}
	for id, w := range words {
		m.lens[id] = int32(len(w))
		s := int32(0)
		for i := 0; i < len(w); i++ {
			k, t := m.class[w[i]], int32(-1)
			for _, e := range kids[s] {
				if e.k == k {
					t = e.to
					break
				}
			}
			if t < 0 {
				t = int32(len(kids))
				kids = append(kids, nil)
				out = append(out, nil)
				kids[s] = append(kids[s], edge{k, t})
			}
			s = t
		}
		out[s] = append(out[s], int32(id))
	}
	// Breadth first: a state's row starts as its failure state's
	// (complete by then, being shallower) and its own edges replace those
	// entries; the root's missing edges go to the root, the zero value. A
	// child's failure state is where its parent's failure state goes on
	// the same byte.
	w := m.width
	m.next = make([]int32, len(kids)*w)
	m.out = out
	fail := make([]int32, len(kids))
	queue := make([]int32, 0, len(kids))
	for _, e := range kids[0] {
		m.next[int(e.k)] = e.to
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := fail[s]
		m.out[s] = append(m.out[s], m.out[f]...)
		row, frow := m.next[int(s)*w:int(s+1)*w], m.next[int(f)*w:int(f+1)*w]
		copy(row, frow)
		for _, e := range kids[s] {
			fail[e.to] = frow[e.k]
			row[e.k] = e.to
			queue = append(queue, e.to)
		}
	}
	return m
}

// acHit is one occurrence of a keyword: its id and the offset just past it.
type acHit struct{ id, end int32 }

// hits appends to dst every occurrence of a keyword in s, in the order of
// their ends.
func (m *acMatcher) hits(s string, dst []acHit) []acHit {
	st := int32(0)
	for i := 0; i < len(s); i++ {
		st = m.next[int(st)*m.width+int(m.class[s[i]])]
		for _, id := range m.out[st] {
			dst = append(dst, acHit{id: id, end: int32(i + 1)})
		}
	}
	return dst
}
