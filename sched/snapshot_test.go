package sched

import (
	"math"
	"strings"
	"testing"
)

func TestReasonMessages(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
	b.job("x")
	s := b.snapshot()
	for r := Reason(0); r <= ReasonGPUType+1; r++ {
		for _, pe := range []Pending{
			{Job: 0, Reason: r, Blocker: -1, Need: 2, Free: 1, At: -1},
			{Job: 0, Reason: r, Blocker: 0, Need: 2, Free: 1, At: 100},
			{Job: 0, Reason: r, Blocker: 7, Need: 0, Free: 0, At: Never},
		} {
			if m := pe.Message(s); m == "" {
				t.Errorf("reason %d (%v): empty message for %+v", r, r, pe)
			}
		}
		if r.String() == "" {
			t.Errorf("reason %d: empty name", r)
		}
	}
	if got := ReasonWouldDelay.String(); got != "would_delay" {
		t.Errorf("name %q", got)
	}
	if got := (Pending{Reason: ReasonBehind, Blocker: 5}).Message(s); !strings.Contains(got, "another job") {
		t.Errorf("out-of-range blocker: %q", got)
	}
}

func TestInvalidSnapshots(t *testing.T) {
	base := func(t *testing.T) *cluster {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 2, 8, "")
		j := b.job("j", waiting(1))
		b.running(j, start(0), on("p-1", 4))
		return b
	}
	tests := []struct {
		name   string
		mutate func(s *Snapshot)
		want   string // part of the error
	}{
		{"over-committed node", func(s *Snapshot) {
			s.Allocs = append(s.Allocs, Alloc{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 5}}})
		}, "over-committed"},
		{"over-committed by a preempting task", func(s *Snapshot) {
			s.Allocs = append(s.Allocs, Alloc{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 5}}, Preempting: true})
		}, "over-committed"},
		{"alloc job index out of range", func(s *Snapshot) { s.Allocs[0].Job = 3 }, "out of range"},
		{"alloc negative job index", func(s *Snapshot) { s.Allocs[0].Job = -1 }, "out of range"},
		{"alloc node index out of range", func(s *Snapshot) { s.Allocs[0].Nodes[0].Node = 2 }, "out of range"},
		{"alloc negative node index", func(s *Snapshot) { s.Allocs[0].Nodes[0].Node = -1 }, "out of range"},
		{"alloc with no nodes", func(s *Snapshot) { s.Allocs[0].Nodes = nil }, "no nodes"},
		{"job pool index out of range", func(s *Snapshot) { s.Jobs[0].Pool = 1 }, "out of range"},
		{"node pool index out of range", func(s *Snapshot) { s.Nodes[1].Pool = 5 }, "out of range"},
		{"negative node slots", func(s *Snapshot) { s.Nodes[1].Slots = -1 }, "negative"},
		{"weight zero", func(s *Snapshot) { s.Jobs[0].Weight = 0 }, "weight"},
		{"negative weight", func(s *Snapshot) { s.Jobs[0].Weight = -2 }, "weight"},
		{"NaN weight", func(s *Snapshot) { s.Jobs[0].Weight = math.NaN() }, "weight"},
		{"negative job slots", func(s *Snapshot) { s.Jobs[0].Slots = -1 }, "negative"},
		{"negative waiting", func(s *Snapshot) { s.Jobs[0].Waiting = -1 }, "negative"},
		{"negative max running", func(s *Snapshot) { s.Jobs[0].MaxRunning = -1 }, "negative"},
		{"unknown policy", func(s *Snapshot) { s.Pools[0].Policy = "lottery" }, "unknown policy"},
		{"empty policy", func(s *Snapshot) { s.Pools[0].Policy = "" }, "unknown policy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base(t).snapshot()
			tc.mutate(s)
			before := cloneSnapshot(s)
			var sc Scheduler
			p, err := sc.Schedule(s)
			if err == nil {
				t.Fatalf("no error; plan:\n%s", fmtPlan(s, p))
			}
			if p != nil {
				t.Errorf("plan returned with error %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if !snapshotsEqual(before, s) {
				t.Error("Schedule modified the snapshot")
			}
			// The Scheduler is still usable after an error.
			good := base(t).snapshot()
			if _, err := sc.Schedule(good); err != nil {
				t.Fatalf("valid snapshot after an error: %v", err)
			}
		})
	}
	t.Run("the base snapshot is valid", func(t *testing.T) {
		if _, err := Schedule(base(t).snapshot()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an empty snapshot is valid", func(t *testing.T) {
		p, err := Schedule(&Snapshot{})
		if err != nil || len(p.Starts)+len(p.Preemptions)+len(p.Pending) != 0 {
			t.Fatalf("plan %+v, err %v", p, err)
		}
	})
}
