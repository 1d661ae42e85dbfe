package sched

import (
	"slices"
	"strings"
	"testing"
)

// startIDs renders the jobs of the plan's starts, in plan order.
func startIDs(s *Snapshot, p *Plan) []string {
	var out []string
	for _, st := range p.Starts {
		out = append(out, s.Jobs[st.Job].ID)
	}
	return out
}

func TestFIFO(t *testing.T) {
	t.Run("starts in order while the head fits", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
		a := b.job("a", slots(2), submit(0))
		bb := b.job("b", slots(2), submit(1))
		c := b.job("c", slots(8), submit(2))
		d := b.job("d", slots(1), submit(3))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("starts %v, want [a b]", got)
		}
		mustNotPending(t, s, &p, a)
		mustNotPending(t, s, &p, bb)
		pc := mustPending(t, s, &p, c, ReasonNoCapacity)
		if pc.Need != 8 || pc.Free != 4 {
			t.Errorf("c pending need=%d free=%d, want 8 and 4", pc.Need, pc.Free)
		}
		pd := mustPending(t, s, &p, d, ReasonBehind)
		if pd.Blocker != c {
			t.Errorf("d blocker %d, want %d", pd.Blocker, c)
		}
		if m := pd.Message(s); !strings.Contains(m, "job c") {
			t.Errorf("message %q does not name the blocker", m)
		}
	})
	t.Run("head-of-line blocking: a later job that fits waits", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
		x := b.job("x", waiting(0))
		b.running(x, start(0), on("p-1", 6))
		head := b.job("head", slots(4), submit(1))
		small := b.job("small", slots(1), submit(2))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 {
			t.Fatalf("starts:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, head, ReasonNoCapacity)
		if pe := mustPending(t, s, &p, small, ReasonBehind); pe.Blocker != head {
			t.Fatalf("blocker %d, want %d", pe.Blocker, head)
		}
	})
	t.Run("order is submit time, then sequence, then ID", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 1, "")
		// Added in reverse order; only one slot is free.
		b.job("late", submit(5), seq(1))
		b.job("b-same-seq", submit(3), seq(7))
		b.job("a-same-seq", submit(3), seq(7))
		b.job("higher-seq", submit(3), seq(9))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"a-same-seq"}) {
			t.Fatalf("starts %v, want [a-same-seq]", got)
		}
	})
	t.Run("a capped job does not block the queue", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
		capped := b.job("capped", waiting(5), maxRunning(2), submit(0))
		b.running(capped, start(0), on("p-1", 1))
		next := b.job("next", submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if n := len(startsOf(&p, capped)); n != 1 {
			t.Fatalf("capped started %d tasks, want 1 (max running 2, one runs)", n)
		}
		mustPending(t, s, &p, capped, ReasonMaxConcurrent)
		if len(startsOf(&p, next)) != 1 {
			t.Fatalf("next did not start:\n%s", fmtPlan(s, &p))
		}
	})
	t.Run("several tasks of one job, the rest waits with a reason", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 2, 3, "")
		j := b.job("trials", slots(2), waiting(4))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startPlacements(s, &p, j); !slices.Equal(got, []string{"p-1:2", "p-2:2"}) {
			t.Fatalf("placements %v", got)
		}
		mustPending(t, s, &p, j, ReasonFragmented)
	})
}

// TestPoolsAreSeparate: each pool schedules its own nodes only.
func TestPoolsAreSeparate(t *testing.T) {
	b := newCluster(t).pool("a", PolicyFIFO).nodes("a", 1, 4, "").pool("b", PolicyPriority).nodes("b", 1, 4, "")
	x := b.job("x", waiting(0), inPool("a"))
	b.running(x, start(0), on("a-1", 4))
	ja := b.job("ja", inPool("a"), submit(1))
	jb := b.job("jb", slots(4), inPool("b"), submit(2))
	s := b.snapshot()
	p := mustSchedule(t, s)
	mustPending(t, s, &p, ja, ReasonNoCapacity)
	if got := startPlacements(s, &p, jb); !slices.Equal(got, []string{"b-1:4"}) {
		t.Fatalf("jb placements %v\n%s", got, fmtPlan(s, &p))
	}
}

func TestSerialFIFO(t *testing.T) {
	t.Run("one job at a time", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO, withSerial()).nodes("p", 2, 8, "")
		a := b.job("a", slots(2), waiting(2), submit(0))
		bb := b.job("b", slots(1), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"a", "a"}) {
			t.Fatalf("starts %v, want [a a]", got)
		}
		if pe := mustPending(t, s, &p, bb, ReasonSerial); pe.Blocker != a {
			t.Fatalf("blocker %d, want %d", pe.Blocker, a)
		}
	})
	t.Run("the job holding slots stays active", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO, withSerial()).nodes("p", 2, 8, "")
		a := b.job("a", waiting(0), submit(0))
		b.running(a, start(0), on("p-1", 1))
		bb := b.job("b", submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 {
			t.Fatalf("starts while a runs:\n%s", fmtPlan(s, &p))
		}
		if pe := mustPending(t, s, &p, bb, ReasonSerial); pe.Blocker != a {
			t.Fatalf("blocker %d, want %d", pe.Blocker, a)
		}
		// After a ends, b runs.
		s.Allocs = nil
		p = mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("starts %v, want [b]", got)
		}
	})
	t.Run("without serial the next job starts beside the first", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 2, 8, "")
		a := b.job("a", waiting(0), submit(0))
		b.running(a, start(0), on("p-1", 1))
		b.job("b", submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("starts %v, want [b]", got)
		}
	})
}

func TestPriorityOrder(t *testing.T) {
	t.Run("a lower number goes first", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority).nodes("p", 1, 2, "")
		low := b.job("low", prio(5), slots(2), submit(0))
		high := b.job("high", prio(1), slots(2), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"high"}) {
			t.Fatalf("starts %v, want [high]", got)
		}
		mustNotPending(t, s, &p, high)
		mustPending(t, s, &p, low, ReasonNoCapacity)
	})
	t.Run("FIFO within a level", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority).nodes("p", 1, 1, "")
		b.job("second", prio(3), submit(2))
		b.job("first", prio(3), submit(1))
		b.job("lower", prio(4), submit(0))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := startIDs(s, &p); !slices.Equal(got, []string{"first"}) {
			t.Fatalf("starts %v, want [first]", got)
		}
	})
	t.Run("a blocked job blocks every less important job", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority).nodes("p", 1, 4, "")
		x := b.job("x", waiting(0), prio(9))
		b.running(x, start(0), on("p-1", 2))
		h := b.job("h", prio(1), slots(4))
		l := b.job("l", prio(5), slots(1), preemptible())
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 || len(p.Preemptions) != 0 {
			t.Fatalf("plan:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, h, ReasonNoCapacity)
		if pe := mustPending(t, s, &p, l, ReasonBehind); pe.Blocker != h {
			t.Fatalf("blocker %d, want %d", pe.Blocker, h)
		}
	})
}

func TestPreemption(t *testing.T) {
	// victim describes a running task on the one 8-slot node.
	type victim struct {
		prio        int
		slots       int
		start       int64
		preemptible bool
	}
	tests := []struct {
		name       string
		preemption bool
		victims    []victim
		need       int
		needPrio   int
		want       []int // preempted victim indices
		reason     Reason
	}{
		{
			name: "lowest priority first", preemption: true, need: 2, needPrio: 1,
			victims: []victim{{3, 2, 0, true}, {5, 2, 0, true}, {4, 2, 0, true}, {9, 2, 0, false}},
			want:    []int{1}, reason: ReasonCheckpointing,
		},
		{
			name: "newest first within a priority", preemption: true, need: 2, needPrio: 1,
			victims: []victim{{5, 2, 10, true}, {5, 2, 30, true}, {5, 2, 20, true}, {5, 2, 0, true}},
			want:    []int{1}, reason: ReasonCheckpointing,
		},
		{
			name: "several victims when one is not enough", preemption: true, need: 4, needPrio: 1,
			victims: []victim{{5, 2, 0, true}, {5, 2, 1, true}, {5, 2, 2, true}, {5, 2, 3, true}},
			want:    []int{2, 3}, reason: ReasonCheckpointing,
		},
		{
			name: "minimal victim set: a victim the placement does not need is kept", preemption: true,
			need: 4, needPrio: 1,
			victims: []victim{{9, 1, 0, true}, {8, 4, 0, true}, {7, 3, 0, true}},
			want:    []int{1}, reason: ReasonCheckpointing,
		},
		{
			name: "no preemption when evicting every candidate would not make room", preemption: true,
			need: 4, needPrio: 1,
			victims: []victim{{5, 2, 0, true}, {9, 6, 0, false}},
			want:    nil, reason: ReasonNoCapacity,
		},
		{
			name: "never a non-preemptible task", preemption: true, need: 1, needPrio: 1,
			victims: []victim{{9, 8, 0, false}},
			want:    nil, reason: ReasonNoCapacity,
		},
		{
			name: "never an equal priority", preemption: true, need: 1, needPrio: 3,
			victims: []victim{{3, 8, 0, true}},
			want:    nil, reason: ReasonNoCapacity,
		},
		{
			name: "never a higher priority", preemption: true, need: 1, needPrio: 3,
			victims: []victim{{2, 4, 0, true}, {1, 4, 0, true}},
			want:    nil, reason: ReasonNoCapacity,
		},
		{
			name: "no preemption when the pool does not preempt", preemption: false, need: 2, needPrio: 1,
			victims: []victim{{5, 8, 0, true}},
			want:    nil, reason: ReasonNoCapacity,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []poolOpt
			if tc.preemption {
				opts = append(opts, withPreemption())
			}
			b := newCluster(t).pool("p", PolicyPriority, opts...).nodes("p", 1, 8, "").now(100)
			var allocs []int
			for i, v := range tc.victims {
				o := []jobOpt{prio(v.prio), slots(v.slots), waiting(0), submit(int64(i))}
				if v.preemptible {
					o = append(o, preemptible())
				}
				j := b.job("v"+string(rune('0'+i)), o...)
				allocs = append(allocs, b.running(j, start(v.start), on("p-1", v.slots)))
			}
			h := b.job("h", prio(tc.needPrio), slots(tc.need), submit(50))
			s := b.snapshot()
			p := mustSchedule(t, s)
			var want []int
			for _, v := range tc.want {
				want = append(want, allocs[v])
			}
			if got := preempted(&p); !slices.Equal(got, want) {
				t.Fatalf("preempted %v, want %v\n%s", got, want, fmtPlan(s, &p))
			}
			for _, pr := range p.Preemptions {
				if pr.For != h {
					t.Errorf("preemption for %d, want %d", pr.For, h)
				}
			}
			if len(p.Starts) != 0 {
				t.Fatalf("started while victims checkpoint:\n%s", fmtPlan(s, &p))
			}
			mustPending(t, s, &p, h, tc.reason)
		})
	}
}

// TestPreemptionAcrossNodes: victims on a node of the wrong GPU type are
// not taken, and a gang's victims may span nodes.
func TestPreemptionAcrossNodes(t *testing.T) {
	t.Run("victims on another GPU type do not help", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority, withPreemption())
		b.node("p", "a", 8, "a100").node("p", "h", 8, "h100")
		low := b.job("low", prio(9), waiting(0), preemptible())
		b.running(low, start(0), on("a", 8))
		pinned := b.job("pinned", prio(9), waiting(0))
		b.running(pinned, start(0), on("h", 8))
		hi := b.job("hi", prio(1), gpuType("h100"), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Preemptions) != 0 {
			t.Fatalf("preempted:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, hi, ReasonNoCapacity)
	})
	t.Run("a gang preempts on two nodes", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority, withPreemption()).nodes("p", 2, 8, "")
		low := b.job("low", prio(9), waiting(0), preemptible(), slots(8))
		a1 := b.running(low, start(0), on("p-1", 8))
		a2 := b.running(low, start(1), on("p-2", 8))
		hi := b.job("hi", prio(1), slots(16), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if got := preempted(&p); !slices.Equal(got, []int{a1, a2}) {
			t.Fatalf("preempted %v:\n%s", got, fmtPlan(s, &p))
		}
		mustPending(t, s, &p, hi, ReasonCheckpointing)
		// Once the victims checkpoint, the gang starts whole.
		s2 := finishCheckpoints(applyPlan(s, &p))
		p2 := mustSchedule(t, s2)
		if got := startPlacements(s2, &p2, hi); !slices.Equal(got, []string{"p-1:8,p-2:8"}) {
			t.Fatalf("gang placements %v\n%s", got, fmtPlan(s2, &p2))
		}
	})
}

// TestSeed000Walkthrough replays the first steps of seed 000's priority
// example on one 8-GPU node with preemption on and backfill off.
func TestSeed000Walkthrough(t *testing.T) {
	b := newCluster(t).pool("gpu", PolicyPriority, withPreemption()).nodes("gpu", 1, 8, "")
	asha := b.job("asha", prio(2), slots(1), waiting(20), maxRunning(20), preemptible())
	s := b.snapshot()
	// 1. Eight trials fill the node.
	p := mustSchedule(t, s)
	if n := len(startsOf(&p, asha)); n != 8 {
		t.Fatalf("asha started %d trials, want 8", n)
	}
	mustPending(t, s, &p, asha, ReasonNoCapacity)
	s = applyPlan(s, &p)
	// Give the trials distinct start times so "newest first" is visible.
	for i := range s.Allocs {
		s.Allocs[i].Start = int64(i)
	}
	s.Now = 600
	// 2. A priority 1 job of 4 slots preempts the four newest trials.
	s.Jobs = append(s.Jobs, Job{ID: "dist-p1-4", Kind: KindExperiment, Submit: 600, Seq: 2, Priority: 1,
		Weight: 1, Slots: 4, Waiting: 1, MaxRunning: 1})
	dist := len(s.Jobs) - 1
	p = mustSchedule(t, s)
	if got := preempted(&p); !slices.Equal(got, []int{4, 5, 6, 7}) {
		t.Fatalf("preempted %v, want the four newest trials [4 5 6 7]\n%s", got, fmtPlan(s, &p))
	}
	mustPending(t, s, &p, dist, ReasonCheckpointing)
	// While they checkpoint, another pass preempts nothing more.
	s = applyPlan(s, &p)
	p = mustSchedule(t, s)
	if len(p.Preemptions) != 0 || len(p.Starts) != 0 {
		t.Fatalf("second pass while checkpointing:\n%s", fmtPlan(s, &p))
	}
	mustPending(t, s, &p, dist, ReasonCheckpointing)
	// 3. After the checkpoints the job starts on the freed slots; asha's
	// preempted trials wait again.
	s = finishCheckpoints(s)
	p = mustSchedule(t, s)
	if got := startPlacements(s, &p, dist); !slices.Equal(got, []string{"gpu-1:4"}) {
		t.Fatalf("dist placements %v\n%s", got, fmtPlan(s, &p))
	}
	if len(startsOf(&p, asha)) != 0 {
		t.Fatal("asha restarted on slots the priority 1 job needs")
	}
	if s.Jobs[asha].Waiting != 16 {
		t.Fatalf("asha waiting %d, want 16 (12 unstarted + 4 preempted)", s.Jobs[asha].Waiting)
	}
	// A priority 3 notebook waits: the experiments use all 8 slots.
	s = applyPlan(s, &p)
	s.Jobs = append(s.Jobs, Job{ID: "notebook", Kind: KindNotebook, Submit: 1200, Seq: 3, Priority: 3,
		Weight: 1, Slots: 1, Waiting: 1, MaxRunning: 1})
	nb := len(s.Jobs) - 1
	p = mustSchedule(t, s)
	if len(p.Starts) != 0 || len(p.Preemptions) != 0 {
		t.Fatalf("plan with a full node:\n%s", fmtPlan(s, &p))
	}
	if pe := mustPending(t, s, &p, nb, ReasonBehind); pe.Blocker != asha {
		t.Fatalf("notebook blocker %d, want asha", pe.Blocker)
	}
}

func TestPriorityBackfill(t *testing.T) {
	t.Run("only preemptible lower-priority jobs use idle slots", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority, withBackfill()).nodes("p", 1, 8, "")
		n := b.job("nb", prio(9), waiting(0), kind(KindNotebook))
		b.running(n, start(0), on("p-1", 4))
		h := b.job("h", prio(1), slots(8), submit(1))
		bf := b.job("bf", prio(5), slots(1), waiting(2), preemptible(), submit(2))
		pinned := b.job("pinned", prio(5), slots(1), submit(3))
		same := b.job("same", prio(1), slots(1), preemptible(), submit(4))
		s := b.snapshot()
		p := mustSchedule(t, s)
		mustPending(t, s, &p, h, ReasonNoCapacity)
		sts := startsOf(&p, bf)
		if len(sts) != 2 {
			t.Fatalf("bf started %d tasks, want 2\n%s", len(sts), fmtPlan(s, &p))
		}
		for _, st := range sts {
			if !st.Backfill {
				t.Fatal("backfilled start not marked Backfill")
			}
		}
		mustNotPending(t, s, &p, bf)
		if pe := mustPending(t, s, &p, pinned, ReasonBehind); pe.Blocker != h {
			t.Fatalf("pinned blocker %d", pe.Blocker)
		}
		if pe := mustPending(t, s, &p, same, ReasonBehind); pe.Blocker != h {
			t.Fatalf("same-priority blocker %d", pe.Blocker)
		}
	})
	t.Run("without backfill nothing passes the blocked job", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority).nodes("p", 1, 8, "")
		n := b.job("nb", prio(9), waiting(0))
		b.running(n, start(0), on("p-1", 4))
		b.job("h", prio(1), slots(8), submit(1))
		bf := b.job("bf", prio(5), preemptible(), submit(2))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 {
			t.Fatalf("starts:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, bf, ReasonBehind)
	})
	t.Run("backfilled tasks are evicted for the blocked job without preemption", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority, withBackfill()).nodes("p", 1, 8, "")
		n := b.job("nb", prio(9), waiting(0))
		b.running(n, start(0), on("p-1", 4))
		plain := b.job("plain", prio(7), waiting(0), preemptible())
		b.running(plain, start(5), on("p-1", 2))
		bf := b.job("bf", prio(5), waiting(0), preemptible())
		a1 := b.running(bf, start(1), on("p-1", 1), backfilled())
		a2 := b.running(bf, start(2), on("p-1", 1), backfilled())
		h := b.job("h", prio(1), slots(2), submit(3))
		s := b.snapshot()
		p := mustSchedule(t, s)
		// The plain lower-priority task is a better victim by priority but
		// the pool does not preempt: only the backfilled tasks may go.
		if got := preempted(&p); !slices.Equal(got, []int{a1, a2}) {
			t.Fatalf("preempted %v, want %v\n%s", got, []int{a1, a2}, fmtPlan(s, &p))
		}
		mustPending(t, s, &p, h, ReasonCheckpointing)
		s2 := finishCheckpoints(applyPlan(s, &p))
		p2 := mustSchedule(t, s2)
		if got := startPlacements(s2, &p2, h); !slices.Equal(got, []string{"p-1:2"}) {
			t.Fatalf("h placements %v\n%s", got, fmtPlan(s2, &p2))
		}
	})
	t.Run("backfilled tasks are not evicted when that does not make room", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyPriority, withBackfill()).nodes("p", 1, 8, "")
		n := b.job("nb", prio(9), waiting(0))
		b.running(n, start(0), on("p-1", 6))
		bf := b.job("bf", prio(5), waiting(0), preemptible())
		b.running(bf, start(1), on("p-1", 2), backfilled())
		h := b.job("h", prio(1), slots(8), submit(3))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Preemptions) != 0 {
			t.Fatalf("preempted:\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, h, ReasonNoCapacity)
	})
}

func TestHolds(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority, withPreemption()).nodes("p", 2, 8, "")
	v := b.job("v", prio(5), waiting(0), preemptible())
	b.running(v, start(0), on("p-1", 4), preempting())
	b.running(v, start(0), on("p-2", 4)) // another possible victim
	n := b.job("n", prio(9), waiting(0))
	b.running(n, start(0), on("p-1", 4))
	b.running(n, start(0), on("p-2", 4))
	h := b.job("h", prio(1), slots(4), submit(1))
	low := b.job("low", prio(9), slots(1), submit(2))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if len(p.Preemptions) != 0 {
		t.Fatalf("new preemption while slots drain:\n%s", fmtPlan(s, &p))
	}
	if len(p.Starts) != 0 {
		t.Fatalf("start on draining slots:\n%s", fmtPlan(s, &p))
	}
	pe := mustPending(t, s, &p, h, ReasonCheckpointing)
	if pe.Need != 4 {
		t.Errorf("need %d, want 4", pe.Need)
	}
	// The held slots are not offered to a less important job.
	mustPending(t, s, &p, low, ReasonNoCapacity)
	if m := pe.Message(s); !strings.Contains(m, "checkpoint") {
		t.Errorf("message %q", m)
	}
	// After the checkpoint h starts where the victim was.
	s2 := finishCheckpoints(s)
	p2 := mustSchedule(t, s2)
	if got := startPlacements(s2, &p2, h); !slices.Equal(got, []string{"p-1:4"}) {
		t.Fatalf("h placements %v\n%s", got, fmtPlan(s2, &p2))
	}
}
