package sched

import "testing"

// TestDrainedNodeNotPromised: a drained node (Node.Drained, capped to what
// its tasks hold) takes no new work, so the slots its tasks free at their
// limits are promised to no one: the EASY shadow time, conservative
// reservations (counted and per node) and the forecast look past them.
func TestDrainedNodeNotPromised(t *testing.T) {
	build := func(t *testing.T, res Reservations, size int, other bool) (*cluster, int) {
		b := newCluster(t).pool("p", PolicyBackfill, withReservations(res)).nodes("p", 1, size, "")
		r := b.job("r", slots(size), waiting(0), timeLimit(100))
		b.running(r, start(0), on("p-1", size))
		if other {
			b.nodes("p", 1, size, "")
			q := b.job("q", slots(size), waiting(0), timeLimit(300))
			b.running(q, start(0), on("p-2", size))
		}
		return b, b.job("w", slots(size), timeLimit(50), submit(1))
	}
	for _, c := range []struct {
		name  string
		res   Reservations
		size  int
		other bool
		// want is the waiting job's reserved start and forecast, Never
		// for none.
		want int64
	}{
		{"EASY, only node drained", ReserveEASY, 1, false, Never},
		{"EASY, another node frees later", ReserveEASY, 1, true, 300},
		{"conservative counted, only node drained", ReserveConservative, 1, false, Never},
		{"conservative counted, another node frees later", ReserveConservative, 1, true, 300},
		{"conservative per node, only node drained", ReserveConservative, 8, false, Never},
		{"conservative per node, another node frees later", ReserveConservative, 8, true, 300},
		{"EASY 8-slot nodes, another node frees later", ReserveEASY, 8, true, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, w := build(t, c.res, c.size, c.other)
			s := b.snapshot()
			s.Nodes[b.nodeIndex("p-1")].Drained = true
			p := mustSchedule(t, s)
			if pe := mustPending(t, s, &p, w, ReasonReserved); pe.At != c.want {
				t.Errorf("reserved at %d, want %d\n%s", pe.At, c.want, fmtPlan(s, &p))
			}
			at, ok := Forecast(s)[w]
			if c.want == Never && ok {
				t.Errorf("forecast %d, want none", at)
			}
			if c.want != Never && (!ok || at != c.want) {
				t.Errorf("forecast %d (%v), want %d", at, ok, c.want)
			}
			// Not drained, the node's slots come back at 100.
			s.Nodes[b.nodeIndex("p-1")].Drained = false
			p = mustSchedule(t, s)
			if pe := mustPending(t, s, &p, w, ReasonReserved); pe.At != 100 {
				t.Errorf("undrained: reserved at %d, want 100", pe.At)
			}
			if at := Forecast(s)[w]; at != 100 {
				t.Errorf("undrained: forecast %d, want 100", at)
			}
		})
	}
}

// TestDrainedMessages: a job that waits on drained nodes is told so, by
// name, and that it waits for a resume; a pool with no drained node keeps
// its messages.
func TestDrainedMessages(t *testing.T) {
	for _, c := range []struct {
		name    string
		pe      Pending
		drained bool
		want    string
	}{
		{"no_nodes, drained", Pending{Reason: ReasonNoNodes, Need: 4}, true,
			"needs 4 slots, but the pool's node p-1 is drained; it waits for a resume"},
		{"no_nodes, not drained", Pending{Reason: ReasonNoNodes, Need: 4}, false,
			"no node in the pool can hold a task of 4 slots with its constraints"},
		{"reserved never, drained", Pending{Reason: ReasonReserved, Need: 4, At: Never}, true,
			"head of the queue, needs 4 slots; no start time can be reserved: the pool's node p-1 is drained, and it waits for a resume or for tasks without a time limit to end"},
		{"reserved never, not drained", Pending{Reason: ReasonReserved, Need: 4, At: Never}, false,
			"head of the queue, needs 4 slots; tasks without a time limit hold slots it needs, so no start time can be reserved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 1, 4, "")
			w := b.job("w", slots(4))
			s := b.snapshot()
			s.Nodes[0].Drained = c.drained
			c.pe.Job = w
			if got := c.pe.Message(s); got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestDrainedPhrase(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a"}, "node a is"},
		{[]string{"a", "b"}, "nodes a and b are"},
		{[]string{"a", "b", "c"}, "nodes a, b and c are"},
		{[]string{"a", "b", "c", "d"}, "4 nodes are"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := DrainedPhrase(c.names); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
