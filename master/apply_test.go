package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestApplierRechecks plans a pass, changes the mirror as a concurrent
// event would between the core's plan and the applier, and checks that the
// applier skips the items that no longer hold.
func TestApplierRechecks(t *testing.T) {
	tests := []struct {
		name   string
		change func(h *harness)
		starts int
	}{
		{"plan still holds", func(*harness) {}, 1},
		{"node lost since the snapshot", func(h *harness) {
			h.m.nodes["n1"].rec.State = store.NodeLost
		}, 0},
		{"GPUs taken since the snapshot", func(h *harness) {
			n := h.m.nodes["n1"]
			for _, g := range n.rec.GPUs {
				n.used[g.Index] = &mtask{}
			}
		}, 0},
		{"task no longer queued", func(h *harness) {
			for _, j := range h.m.jobs {
				for _, t := range j.tasks {
					if t.rec.State == store.TaskQueued {
						// The mirror's record, row and its job's
						// counts say the same.
						t.rec.State, t.State = store.TaskKilled, store.TaskKilled
						j.count.Move(store.TaskQueued, store.TaskKilled)
					}
				}
			}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.agent("n1", 2)
			h.submit(jobSpec("a", 2, ""))
			h.m.lock()
			defer h.m.mu.Unlock()
			h.m.planner.build(h.m.now())
			plan, err := h.m.planner.sc.Schedule(&h.m.planner.snap)
			if err != nil || len(plan.Starts) != 1 {
				t.Fatalf("plan %+v, %v", plan, err)
			}
			tt.change(h)
			starts, _, err := h.m.planner.apply(h.ctx, lifecycle.Decide(nil, plan, nil), h.m.now())
			if err != nil {
				t.Fatal(err)
			}
			if starts != tt.starts {
				t.Fatalf("%d starts applied, want %d", starts, tt.starts)
			}
			tasks, _ := h.st.Tasks(h.ctx, store.TaskFilter{JobID: 1})
			if want := tt.starts == 1; (tasks[0].State == store.TaskStarting) != want {
				t.Fatalf("stored task %s", tasks[0].State)
			}
		})
	}
}

// TestApplierSkipsEndedVictim: a victim that ended between plan and apply
// is not preempted.
func TestApplierSkipsEndedVictim(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	low := h.submit(jobSpec("low", 2, `, "priority": 70`))
	h.step()
	h.sync(a, a)
	h.submit(jobSpec("high", 2, `, "priority": 10`))
	h.m.lock()
	defer h.m.mu.Unlock()
	h.m.planner.build(h.m.now())
	plan, err := h.m.planner.sc.Schedule(&h.m.planner.snap)
	if err != nil || len(plan.Preemptions) != 1 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	victim := h.m.planner.view.allocs[plan.Preemptions[0].Alloc].t
	// As if an earlier pass had asked it already: the mirror's record,
	// row and its job's counts say the same.
	victim.job.count.Move(victim.rec.State, store.TaskPreempting)
	victim.rec.State, victim.State = store.TaskPreempting, store.TaskPreempting
	_, preempts, err := h.m.planner.apply(h.ctx, lifecycle.Decide(nil, plan, nil), h.m.now())
	if err != nil || preempts != 0 {
		t.Fatalf("%d preemptions applied (%v), want 0", preempts, err)
	}
	if got := h.taskState(low, 0); got != store.TaskRunning {
		t.Fatalf("stored victim %s, want running", got)
	}
}

// TestGPUAssignment: concrete GPU indexes are the lowest free ones, and no
// GPU is given twice.
func TestGPUAssignment(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 8)
	for _, slots := range []int{3, 2, 3} {
		h.submit(jobSpec("j", slots, ""))
	}
	h.step()
	h.sync(a)
	seen := map[int]bool{}
	for _, s := range a.Started() {
		for _, g := range s.GPUs {
			if seen[g] {
				t.Fatalf("GPU %d given twice: %+v", g, a.Started())
			}
			seen[g] = true
		}
	}
	if len(seen) != 8 {
		t.Fatalf("%d GPUs used, want 8", len(seen))
	}
}

// reservedBehind starts a master whose one pool backfills conservatively,
// with one node of 4 GPUs running a job of 4 for its hour's time limit,
// and submits a job of 4 with a minute's limit, which can only be
// reserved behind it; it returns the node's agent and the waiting job.
func reservedBehind(t *testing.T) (*harness, *mastertest.Agent, int64) {
	cfg := mustConfig(t, "pools:\n  - name: default\n    policy: backfill\n    reservations: conservative\n")
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 4)
	h.submit(jobSpec("running", 4, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	return h, a, h.submit(jobSpec("waiting", 4, `, "time_limit": 60`))
}

// TestReservationsCarriedOnEventsOnly: conservative reservations move from
// pass to pass after events, as in the simulator, and idle ticks leave
// them alone.
func TestReservationsCarriedOnEventsOnly(t *testing.T) {
	h, a, waiting := reservedBehind(t)
	h.step()
	j := h.m.jobs[waiting]
	want := h.clock.Now().Unix() + 3600
	reserved := func() int64 { at, _ := h.m.planner.roster.reservation(j); return at }
	if got := reserved(); got != want {
		t.Fatalf("after the submission: reserved %d, want %d", got, want)
	}
	// A marker the next pass would overwrite if it carried.
	h.m.planner.roster.applyCarried()
	e := h.m.planner.roster.Entry(j.ri)
	e.Reserved = want + 100
	h.m.planner.roster.Revise(e)
	h.clock.Advance(time.Second)
	h.sync(a)
	h.m.Tick(h.ctx)
	if got := reserved(); got != want+100 {
		t.Fatalf("after an idle tick: reserved %d, want it untouched", got)
	}
	h.submit(jobSpec("another", 1, ""))
	h.step()
	if reserved() == want+100 {
		t.Fatal("after an event: the reservation was not carried")
	}
}

// TestReservedMessageIsRelative: a reserved job's message gives its start
// relative to now ("in 1h"), and estimated_start the time itself.
func TestReservedMessageIsRelative(t *testing.T) {
	h, _, waiting := reservedBehind(t)
	h.step()
	p := h.job(waiting).Pending
	if p == nil || p.EstimatedStart == nil || !p.EstimatedStart.Equal(h.clock.Now().Add(time.Hour)) ||
		!strings.Contains(p.Message, "to start in 1h") {
		t.Fatalf("pending %+v, want a start in 1h", p)
	}
}
