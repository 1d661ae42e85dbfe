package sched

import (
	"fmt"
	"testing"
)

// spreadFill fills nodes × 8 GPUs with one-GPU tasks of job j, started
// round-robin over the nodes (task i on node i%nodes at time i), so that
// "newest first" takes one task from each node in turn: victims spread.
// Task i starts at 10·i; lost[n], when given, starts node n's tasks that
// much earlier, so they would lose more work.
func spreadFill(s *Snapshot, j, nodes int, lost []int64) {
	for i := range nodes * 8 {
		n := i % nodes
		st := int64(10 * i)
		if lost != nil {
			st -= lost[n]
		}
		s.Allocs = append(s.Allocs, Alloc{Job: j, Nodes: []NodeSlots{{Node: int32(n), Slots: 1}}, Start: st})
	}
}

// preemptedNodes returns the nodes the plan's preemptions free slots on.
func preemptedNodes(s *Snapshot, p *Plan) map[int32]int {
	out := map[int32]int{}
	for _, pr := range p.Preemptions {
		for _, ns := range s.Allocs[pr.Alloc].Nodes {
			out[ns.Node] += int(ns.Slots)
		}
	}
	return out
}

// TestWholeNodeFromSpreadVictims is issue 14's first case: 4 nodes × 8
// GPUs full of one-GPU tasks, spread so that the usual victim order takes
// one task per node; an 8-GPU task that may preempt must free one whole
// node in one pass, the node whose victims lose least, and never take a
// victim below its quota or fair share.
func TestWholeNodeFromSpreadVictims(t *testing.T) {
	// Node n's tasks start at 10n + 40k, node 3's 25 s earlier: newest
	// first still alternates between nodes, and node 2 loses least.
	lost := []int64{0, 0, 0, 25}
	tests := []struct {
		name  string
		build func() (*Snapshot, int)
	}{
		{"priority", func() (*Snapshot, int) {
			s := &Snapshot{Now: 5000, Pools: []Pool{{Name: "gpu", Policy: PolicyPriority, Preemption: true, Placement: PlaceBinpack}}}
			addNodes(s, 4, 8)
			low := addPrioJob(s, "low", 50, 1, 0)
			spreadFill(s, low, 4, lost)
			return s, addPrioJob(s, "big", 10, 8, 1)
		}},
		{"quota", func() (*Snapshot, int) {
			s := quotaSnap(4, 8, "over", 8, "under", 16)
			s.Now = 5000
			over := addJob(s, "over", 0, 1, 0, false)
			spreadFill(s, over, 4, lost)
			return s, addJob(s, "big", 1, 8, 1, false)
		}},
		{"fair_share", func() (*Snapshot, int) {
			s := &Snapshot{Now: 5000, Pools: []Pool{{Name: "gpu", Policy: PolicyFairShare, Preemption: true, Placement: PlaceBinpack}}}
			addNodes(s, 4, 8)
			a := addPrioJob(s, "alice", 42, 1, 8)
			spreadFill(s, a, 4, lost)
			return s, addPrioJob(s, "bob", 42, 8, 1)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, big := tc.build()
			p := mustSchedule(t, s)
			freed := preemptedNodes(s, &p)
			if len(freed) != 1 || freed[2] != 8 {
				t.Fatalf("want 8 slots freed on node 2 (least lost), got %v\n%s", freed, fmtPlan(s, &p))
			}
			if pe, ok := pendingOf(&p, big); !ok || pe.Reason != ReasonCheckpointing {
				t.Errorf("big should hold the drained node, got %+v", pe)
			}
			s2, _, _ := settle(t, s, 5)
			if got := runningSlots(s2, big); got != 8 {
				t.Errorf("big runs %d slots after settling, want 8", got)
			}
		})
	}
}

func addNodes(s *Snapshot, n, size int) {
	for i := range n {
		s.Nodes = append(s.Nodes, Node{Name: fmt.Sprintf("n%d", len(s.Nodes)+1), Pool: 0, Slots: size, ZeroSlotLimit: 10})
		_ = i
	}
}

func addPrioJob(s *Snapshot, id string, prio, slots, waiting int) int {
	s.Jobs = append(s.Jobs, Job{ID: id, Submit: int64(len(s.Jobs)), Seq: int64(len(s.Jobs)), Priority: prio,
		Weight: 1, Preemptible: true, Slots: slots, Waiting: waiting, MaxRunning: 1000})
	return len(s.Jobs) - 1
}

func runningSlots(s *Snapshot, j int) int {
	n := 0
	for _, a := range s.Allocs {
		if a.Job == j && !a.Preempting {
			n += Slots(a.Nodes)
		}
	}
	return n
}
