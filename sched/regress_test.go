package sched

// Regression tests for bugs found by the property tests. Each failed
// against the code as it was found and states the expected behaviour.

import (
	"slices"
	"testing"
)

// TestBugHoldInsteadOfStart: a task is held on draining slots (it waits for
// a checkpoint) although another node has enough free slots to start it now.
// tryPlace's first, free-only search masks every node that has any draining
// slots, so node p-2's 4 free slots are never considered as free; the second
// search picks the best fit by free+draining slots, p-1, where only 2 slots
// are free.
func TestBugHoldInsteadOfStart(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority, withPreemption()).nodes("p", 2, 8, "")
	x := b.job("x", prio(9), waiting(0))
	b.running(x, start(0), on("p-1", 4))
	v := b.job("v", prio(9), waiting(0), preemptible())
	b.running(v, start(0), on("p-1", 2), preempting()) // p-1: 2 free, 2 draining
	b.running(v, start(0), on("p-2", 4), preempting()) // p-2: 4 free, 4 draining
	j := b.job("j", prio(1), slots(3))
	s := b.snapshot()
	p := mustSchedule(t, s)
	// Expected: j starts now on p-2's free slots. Actual: no start, j
	// pending "checkpointing" with a hold on p-1.
	if got := startPlacements(s, &p, j); !slices.Equal(got, []string{"p-2:3"}) {
		t.Fatalf("j placements %v, want [p-2:3]\n%s", got, fmtPlan(s, &p))
	}
}

// TestBugConservativeImpossibleJobStarvesPool: in a conservative pool a job
// that can never run (its GPU type is not in the pool) is reserved "now" in
// the slot-count profile, its placement then fails, and the reservation
// stays in the profile for its whole time limit (forever without one). Every
// later job sees that capacity as taken: on an empty 8-slot pool an 8-slot
// job never starts.
func TestBugConservativeImpossibleJobStarvesPool(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 1, 8, "h100")
	ghost := b.job("ghost", gpuType("a100"), submit(0))
	big := b.job("big", slots(8), timeLimit(100), submit(1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	mustPending(t, s, &p, ghost, ReasonGPUType)
	// Expected: big starts on the empty node. Actual: big pending
	// "reserved" with At = Never.
	if len(startsOf(&p, big)) != 1 {
		t.Fatalf("big did not start on an empty pool\n%s", fmtPlan(s, &p))
	}
}

// TestBugEASYImpossibleHead: under EASY a head job that can never fit (no
// node of its GPU type) is reported as "reserved" with no start time, and
// since no reservation exists nothing may backfill: the pool idles forever.
// Expected: the head is reported as gpu_type (no_nodes before that reason
// existed), and a later job that fits
// starts, since it cannot delay a reservation that does not exist.
func TestBugEASYImpossibleHead(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 2, 8, "h100")
	head := b.job("head", gpuType("a100"), timeLimit(100), submit(0))
	next := b.job("next", timeLimit(100), submit(1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	mustPending(t, s, &p, head, ReasonGPUType) // actual: reserved, At = Never
	if len(startsOf(&p, next)) != 1 {
		t.Fatalf("next did not start on an idle pool\n%s", fmtPlan(s, &p)) // actual: would_delay
	}
}

// TestBugConservativeTooBigIsReserved: a job larger than the whole pool is
// reported as "reserved" (with the message "no running task has a time
// limit, so no start time can be reserved") instead of no_nodes.
func TestBugConservativeTooBigIsReserved(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 1, 8, "")
	j := b.job("huge", slots(9))
	s := b.snapshot()
	p := mustSchedule(t, s)
	mustPending(t, s, &p, j, ReasonNoNodes) // actual: reserved, At = Never
}

// TestBugFairShareNeverFitsAboveShare: under fair share a job that can
// never fit is reported as above_share ("holds its fair share") when its
// share is zero, instead of no_nodes. Here hog takes the first slot of the
// water-filling, ghost's 4-slot step no longer fits the 3 left, so ghost's
// share is 0.
func TestBugFairShareNeverFitsAboveShare(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFairShare).nodes("p", 1, 4, "h100")
	hog := b.job("hog", waiting(4), submit(0))
	ghost := b.job("ghost", slots(4), gpuType("a100"), submit(1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if n := len(startsOf(&p, hog)); n != 4 {
		t.Fatalf("hog started %d", n)
	}
	mustPending(t, s, &p, ghost, ReasonGPUType) // actual: above_share
}

// TestBugConservativeNoReservationWhenNowFull: conservative backfilling
// promises a reservation for every queued job, but once the profile has no
// slot left at the current time the remaining jobs skip the reservation
// and are reported as no_capacity without a start time.
func TestBugConservativeNoReservationWhenNowFull(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill, withReservations(ReserveConservative)).nodes("p", 4, 1, "")
	r := b.job("r", slots(2), waiting(0), timeLimit(100))
	b.running(r, start(0), on("p-1", 1), on("p-2", 1))
	b.job("a", slots(4), timeLimit(100), submit(1)) // reserved at 100
	b.job("short", timeLimit(50), submit(2))        // starts now, ends 50
	b.job("fits", timeLimit(100), submit(3))        // starts now: now is full
	last := b.job("last", timeLimit(10), submit(4)) // one slot is free in [50,100)
	s := b.snapshot()
	p := mustSchedule(t, s)
	pe := mustPending(t, s, &p, last, ReasonReserved) // actual: no_capacity
	if pe.At != 50 {
		t.Fatalf("last reserved at %d, want 50", pe.At)
	}
}

// TestBugEASYReservationInThePast: a running task past its time limit (the
// kill has not landed yet) makes the head's shadow time lie in the past:
// "reserved to start at t=50s" at t=1000. Conservative backfilling clamps
// such ends to now; EASY does not.
func TestBugEASYReservationInThePast(t *testing.T) {
	b := newCluster(t).pool("p", PolicyBackfill).nodes("p", 2, 1, "").now(1000)
	r := b.job("r", waiting(0), timeLimit(50))
	b.running(r, start(0), on("p-1", 1)) // due to end at 50
	head := b.job("head", slots(2), timeLimit(100), submit(1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	pe := mustPending(t, s, &p, head, ReasonReserved)
	if pe.At < s.Now {
		t.Fatalf("head reserved at %d, before now (%d)", pe.At, s.Now)
	}
}

// TestBugNegativeAllocSlotsPanics: an allocation with a negative slot count
// is not rejected; it raises the node's free count above its size and
// Schedule panics with an index out of range while indexing the node.
// Expected: an error, as for any inconsistent snapshot.
func TestBugNegativeAllocSlotsPanics(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 8, "")
	j := b.job("j", waiting(0))
	b.running(j, start(0), on("p-1", -4))
	s := b.snapshot()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Schedule panicked: %v", r)
		}
	}()
	if _, err := Schedule(s); err == nil {
		t.Fatal("no error for an allocation of -4 slots")
	}
}

// TestBugFairShareStaleHeap: under fair share with preemption, evicting a
// victim lowers its job's allocation (fairShare.took, via account) while that
// job sits in the allocation heap. The heap now tracks positions (fsQueue.pos
// and fix exist) but took never calls fix, so the victim keeps its old key
// and "most deprived job first" depends on where the job sits in the heap,
// that is on the order of jobs in the snapshot.
//
// One 3-slot node; j1 runs one 3-slot task. Shares come out j0 1, j2 2,
// j1 0, j3 0. j0 (key 0, earliest) preempts j1's task and holds 1 of the 3
// draining slots. j1's allocation drops to 0, so j1, j2 and j3 all have key
// 0 and j1 (the earliest) must be tried next: it fails with 2 slots
// available (Free = 2), then j2 holds those 2. With the jobs in snapshot
// order j0..j3 the heap still has j1's old key 3/12 and tries j2 first, so
// j1 reports Free = 0; with the jobs in reverse order it reports 2.
func TestBugFairShareStaleHeap(t *testing.T) {
	build := func(order []string) (*Snapshot, int) {
		b := newCluster(t).pool("p", PolicyFairShare, withPreemption()).nodes("p", 1, 3, "").now(1000)
		idx := map[string]int{}
		for _, id := range order {
			switch id {
			case "j0":
				idx[id] = b.job("j0", slots(1), weight(1), waiting(2), maxRunning(4), submit(0), seq(1))
			case "j1":
				idx[id] = b.job("j1", slots(3), weight(2), waiting(1), maxRunning(2), preemptible(), submit(1), seq(2))
			case "j2":
				idx[id] = b.job("j2", slots(2), weight(2), waiting(2), maxRunning(3), preemptible(), submit(2), seq(3))
			case "j3":
				idx[id] = b.job("j3", slots(1), weight(1), waiting(2), maxRunning(3), submit(3), seq(4))
			}
		}
		b.running(idx["j1"], start(0), on("p-1", 3))
		return b.snapshot(), idx["j1"]
	}
	for _, order := range [][]string{{"j0", "j1", "j2", "j3"}, {"j3", "j2", "j1", "j0"}} {
		s, j1 := build(order)
		p := mustSchedule(t, s)
		if len(p.Preemptions) != 1 || s.Jobs[p.Preemptions[0].For].ID != "j0" {
			t.Fatalf("order %v: want one preemption for j0\n%s", order, fmtPlan(s, &p))
		}
		// Jobs below their share go first: j2 (share 2) holds the two
		// draining slots before j1 (share 0) is tried, whatever the order
		// of jobs in the snapshot.
		// j1, preempted, holds nothing and its share came to nothing
		// (3 slots do not fit beside j0's and j2's first tasks): it waits
		// for room, not "holding its share".
		pe := mustPending(t, s, &p, j1, ReasonNoCapacity)
		if pe.Free != 0 {
			t.Errorf("order %v: j1 pending free = %d, want 0 (j2, below its share, goes first)\n%s", order, pe.Free, fmtPlan(s, &p))
		}
	}
}

// TestBugFairShareThrash: a preemption under fair share can repeat forever
// at one instant. p (share 1) preempts v's 2-slot task (v's share is 0);
// once v has checkpointed, v (allocation 0, key 0) ties with p (key 0) and,
// submitted earlier, is tried first: it restarts on the freed slots, and the
// next pass p preempts it again. In the simulator this never ends: v's task
// is preempted at every start and p never runs.
//
// One 5-slot node: n (not preemptible) holds 3, v holds 2. z (4 slots,
// earliest) takes a share of 4 it cannot use, which leaves shares z 4, p 1,
// v 0, n 0. Expected: after v's checkpoint p starts on the freed slots, and
// the pool settles.
func TestBugFairShareThrash(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFairShare, withPreemption()).nodes("p", 1, 5, "").now(1000)
	b.job("z", slots(4), submit(0))
	v := b.job("v", slots(2), waiting(1), maxRunning(2), preemptible(), submit(1))
	n := b.job("n", slots(3), waiting(0), maxRunning(1), submit(2))
	pj := b.job("p", slots(1), submit(3))
	b.running(n, start(0), on("p-1", 3))
	b.running(v, start(0), on("p-1", 2))
	s := b.snapshot()
	p1 := mustSchedule(t, s)
	if len(p1.Preemptions) != 1 || p1.Preemptions[0].For != pj {
		t.Fatalf("pass 1: want p to preempt v\n%s", fmtPlan(s, &p1))
	}
	s2 := finishCheckpoints(applyPlan(s, &p1))
	p2 := mustSchedule(t, s2)
	if len(startsOf(&p2, pj)) != 1 {
		// Actual: v restarts on the freed slots and p waits.
		t.Fatalf("pass 2: p did not start on the slots freed for it\n%s", fmtPlan(s2, &p2))
	}
	for i := 0; i < 10; i++ { // and nothing moves after that
		s2 = finishCheckpoints(applyPlan(s2, &p2))
		p2 = mustSchedule(t, s2)
		if len(p2.Preemptions) != 0 {
			t.Fatalf("pass %d: preempts again\n%s", i+3, fmtPlan(s2, &p2))
		}
	}
}
