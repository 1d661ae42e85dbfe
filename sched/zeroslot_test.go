package sched

import (
	"strings"
	"testing"
)

// drainedNode is a node drained as the drivers give it (lifecycle's
// CapDrained): its slots and zero-slot limit shrunk to what its tasks
// hold, none here.
func drainedNode(nd *Node) {
	nd.Drained, nd.OwnSlots, nd.Slots, nd.ZeroSlotLimit = true, nd.Slots, 0, 0
}

// TestZeroSlotWait: a zero-slot job that finds no node gets the reason
// that says why. With every node of its pool drained it waits for a
// resume (no_nodes naming the drained node, as a slot job does), and
// blocks no other; before, it read "every node already runs its limit of
// zero-slot tasks" with none running. With a node up at its limit it
// waits with zero_slot_full, whose message gives the limit and the jobs
// that hold it, those the same pass starts included.
func TestZeroSlotWait(t *testing.T) {
	tests := []struct {
		name string
		// build makes the cluster; it returns the job asked about and
		// the one queued after it.
		build  func(b *cluster) (int, int)
		reason Reason
		after  Reason // the next zero-slot job's reason
		msg    []string
	}{
		{
			name: "every node drained: no_nodes, naming the node",
			build: func(b *cluster) (int, int) {
				b.nodes("p", 1, 4, "", drainedNode)
				return b.job("nb", slots(0), submit(0)), b.job("nb2", slots(0), submit(1))
			},
			reason: ReasonNoNodes, after: ReasonNoNodes,
			msg: []string{"node p-1 is drained; it waits for a resume", "zero-slot"},
		},
		{
			name: "a drained node and a node up at its limit: zero_slot_full",
			build: func(b *cluster) (int, int) {
				b.nodes("p", 1, 4, "", drainedNode)
				b.nodes("p", 1, 4, "", zeroLimit(1))
				hold := b.job("hold", slots(0), waiting(0))
				b.running(hold, start(0), on("p-2", 0))
				return b.job("nb", slots(0), submit(1)), b.job("nb2", slots(0), submit(2))
			},
			reason: ReasonZeroSlotFull, after: ReasonBehind,
			msg: []string{"(1 per node), held by job hold"},
		},
		{
			name: "held by a job the same pass starts",
			build: func(b *cluster) (int, int) {
				b.nodes("p", 1, 4, "", zeroLimit(1))
				b.job("first", slots(0), submit(0))
				return b.job("nb", slots(0), submit(1)), b.job("nb2", slots(0), submit(2))
			},
			reason: ReasonZeroSlotFull, after: ReasonBehind,
			msg: []string{"held by job first"},
		},
		{
			name: "many holders: three named",
			build: func(b *cluster) (int, int) {
				b.nodes("p", 2, 4, "", zeroLimit(2))
				for i, n := range []string{"h1", "h2", "h3", "h4"} {
					h := b.job(n, slots(0), waiting(0))
					b.running(h, start(0), on([]string{"p-1", "p-2"}[i/2], 0))
				}
				return b.job("nb", slots(0), submit(1)), b.job("nb2", slots(0), submit(2))
			},
			reason: ReasonZeroSlotFull, after: ReasonBehind,
			msg: []string{"(2 per node), held by jobs h1, h2, h3 and 1 more"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFIFO)
			j, next := tt.build(b)
			s := b.snapshot()
			p := mustSchedule(t, s)
			mustPending(t, s, &p, j, tt.reason)
			mustPending(t, s, &p, next, tt.after)
			for i := range p.Pending {
				if p.Pending[i].Job != j {
					continue
				}
				m := p.Message(s, i)
				for _, want := range tt.msg {
					if !strings.Contains(m, want) {
						t.Errorf("message %q, want it to say %q", m, want)
					}
				}
			}
		})
	}
}
