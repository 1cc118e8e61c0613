package audit

// acMatcher finds which of a fixed set of keywords occur in a text in one
// pass (Aho-Corasick, compiled to a DFA over bytes). ASCII letters are
// matched case-insensitively; keywords are lower case.
type acMatcher struct {
	next [][256]int32
	out  [][]int32
	n    int
	lens []int32 // the length of each keyword
}

func newACMatcher(words []string) *acMatcher {
	m := &acMatcher{next: make([][256]int32, 1), out: make([][]int32, 1), n: len(words)}
	for _, w := range words {
		m.lens = append(m.lens, int32(len(w)))
	}
	// The trie, with -1 for missing edges while building.
	for i := range m.next[0] {
		m.next[0][i] = -1
	}
	for id, w := range words {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			c := w[i]
			if m.next[s][c] < 0 {
				m.next = append(m.next, [256]int32{})
				m.out = append(m.out, nil)
				ns := int32(len(m.next) - 1)
				for j := range m.next[ns] {
					m.next[ns][j] = -1
				}
				m.next[s][c] = ns
			}
			s = m.next[s][c]
		}
		m.out[s] = append(m.out[s], int32(id))
	}
	// Breadth first: failure links become DFA transitions.
	fail := make([]int32, len(m.next))
	queue := make([]int32, 0, len(m.next))
	for c := 0; c < 256; c++ {
		if t := m.next[0][c]; t < 0 {
			m.next[0][c] = 0
		} else {
			fail[t] = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for c := 0; c < 256; c++ {
			t := m.next[s][c]
			if t < 0 {
				m.next[s][c] = m.next[fail[s]][c]
				continue
			}
			fail[t] = m.next[fail[s]][c]
			queue = append(queue, t)
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
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		st = m.next[st][c]
		for _, id := range m.out[st] {
			dst = append(dst, acHit{id: id, end: int32(i + 1)})
		}
	}
	return dst
}
