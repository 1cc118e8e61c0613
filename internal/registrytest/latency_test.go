package registrytest

import (
	"testing"
	"time"
)

func TestTraceRounds(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name  string
		spans [][2]int
		want  int
	}{
		{"none", nil, 0},
		{"one", [][2]int{{0, 10}}, 1},
		{"parallel", [][2]int{{0, 10}, {1, 11}, {2, 9}}, 1},
		{"sequential", [][2]int{{20, 30}, {0, 10}, {10, 20}}, 3},
		// The chain follows the request that ended first: 0-10 then 11-20
		// then 21-30, though 5-15 overlaps the second.
		{"interleaved", [][2]int{{0, 10}, {5, 15}, {11, 20}, {21, 30}}, 3},
		// A long request spans two short rounds: two rounds, not three.
		{"long", [][2]int{{0, 100}, {0, 10}, {20, 30}}, 2},
	}
	for _, c := range cases {
		tr := NewTrace()
		for _, s := range c.spans {
			tr.add(span{start: at(s[0]), end: at(s[1])}, 1)
		}
		if got := tr.Rounds(); got != c.want {
			t.Errorf("%s: Rounds() = %d, want %d", c.name, got, c.want)
		}
		if c.name == "parallel" && tr.MaxInFlight() != 3 || c.name == "sequential" && tr.MaxInFlight() != 1 {
			t.Errorf("%s: MaxInFlight() = %d", c.name, tr.MaxInFlight())
		}
		if tr.Requests() != len(c.spans) || tr.Bytes() != int64(len(c.spans)) {
			t.Errorf("%s: %d requests, %d bytes", c.name, tr.Requests(), tr.Bytes())
		}
	}
	// A connection opened once a request had ended delays the next
	// request by its handshake: a round, though not a request.
	tr := NewTrace()
	tr.add(span{start: at(0), end: at(10)}, 0)
	tr.conn(span{start: at(11), end: at(20), handshake: true})
	tr.add(span{start: at(21), end: at(30)}, 0)
	if tr.Rounds() != 3 || tr.Requests() != 2 || tr.Conns() != 1 {
		t.Errorf("handshake: %d rounds, %d requests, %d conns; want 3, 2, 1", tr.Rounds(), tr.Requests(), tr.Conns())
	}
}
