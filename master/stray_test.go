package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestPreemptStray: an attempt the master ended that an agent still runs
// is asked to checkpoint only when its task waits to resume, its job is
// preemptible and its GPUs are its own still; it is killed at once
// otherwise.
func TestPreemptStray(t *testing.T) {
	ok := strayFacts{known: true, waiting: true, preemptible: true, gpus: true}
	with := func(f func(*strayFacts)) strayFacts { s := ok; f(&s); return s }
	cases := []struct {
		name string
		f    strayFacts
		want bool
	}{
		{"its task waits to resume", ok, true},
		{"its job is gone", strayFacts{}, false},
		{"a later attempt started", with(func(f *strayFacts) { f.waiting = false }), false},
		{"its job is not preemptible", with(func(f *strayFacts) { f.preemptible = false }), false},
		{"its placement is not known", with(func(f *strayFacts) { f.gpus = false }), false},
		{"its GPUs went to another task", with(func(f *strayFacts) { f.taken = true }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, why := preemptStray(c.f); got != c.want || why == "" {
				t.Fatalf("preemptStray(%+v) = %v (%q), want %v with a reason", c.f, got, why, c.want)
			}
		})
	}
}

// strayCase is a preemptible job's attempt on n1 (one GPU), its node
// lost past the agent timeout and its task requeued, with n1's agent
// (which still runs the attempt) not yet back.
func strayCase(t *testing.T, nodes int) (*harness, []*mastertest.Agent, int64) {
	t.Helper()
	h := newHarness(t, withConfig(mustConfig(t, "pools: [{name: default, policy: priority, preemption: true, grace: 20s}]\n")))
	a := []*mastertest.Agent{h.agent("n1", 1)}
	id := h.submit(jobSpec("train", 1, `, "priority": 80`)) // LOW: preemptible
	h.step()
	h.sync(a[0], a[0])
	for i := 1; i < nodes; i++ {
		a = append(a, h.agent("n"+string(rune('1'+i)), 1))
	}
	a[0].HoldPreempt = true
	h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
	for _, x := range a[1:] {
		h.sync(x)
	}
	h.m.Tick(h.ctx)
	if h.m.nodes["n1"].up() {
		t.Fatal("n1 not lost after the agent timeout")
	}
	if got := h.taskState(id, 0); got != store.TaskQueued && nodes == 1 {
		t.Fatalf("task %s after its node was lost, want queued", got)
	}
	return h, a, id
}

// stops returns the preempts and kills among cmds.
func stops(cmds []api.Command) (preempts, kills []api.Command) {
	for _, c := range cmds {
		switch c.Type {
		case api.CommandPreempt:
			preempts = append(preempts, c)
		case api.CommandKill:
			kills = append(kills, c)
		}
	}
	return preempts, kills
}

// starts counts the starts agent a got for task 0 of job id.
func starts(a *mastertest.Agent, id int64) int {
	n := 0
	for _, s := range a.Started() {
		if s.ID().JobID == tid(id, 0, 1).JobID {
			n++
		}
	}
	return n
}

// TestStrayCheckpointsBeforeItsTaskRestarts (trial F13): the attempt
// that an agent back from a loss still runs gets the pool's checkpoint
// grace, not a kill, and neither its GPUs nor its task's next attempt
// are placed until it has ended: by its own exit, by the kill past its
// grace, or by its node being lost again.
func TestStrayCheckpointsBeforeItsTaskRestarts(t *testing.T) {
	cases := []struct {
		name string
		// end ends the stray once it is held, and says whether the task
		// may start again then (on n1, its only node).
		end func(h *harness, a *mastertest.Agent, id int64) bool
	}{
		{"it checkpoints and exits in its grace", func(h *harness, a *mastertest.Agent, id int64) bool {
			a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
			h.sync(a)
			return true
		}},
		{"it is killed past its grace", func(h *harness, a *mastertest.Agent, id int64) bool {
			h.clock.Advance(15 * time.Second)
			h.sync(a)
			h.m.Tick(h.ctx)
			if _, kills := stops(a.Commands()); len(kills) != 0 {
				h.t.Fatalf("killed in its grace: %+v", kills)
			}
			h.clock.Advance(25 * time.Second)
			h.sync(a)
			h.m.Tick(h.ctx)
			h.sync(a) // takes the kill, and dies (the fake agent)
			_, kills := stops(a.Commands())
			if len(kills) != 1 || kills[0].GraceS != 0 {
				h.t.Fatalf("kills past the grace %+v, want one", kills)
			}
			h.sync(a) // no longer runs it
			return true
		}},
		{"its node is lost again", func(h *harness, a *mastertest.Agent, id int64) bool {
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.m.Tick(h.ctx)
			return false
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, ag, id := strayCase(t, 1)
			a := ag[0]
			reply, err := a.Register(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			preempts, kills := stops(reply.Commands)
			if len(kills) != 0 || len(preempts) != 1 || preempts[0].Task != tid(id, 0, 1) || preempts[0].GraceS != 20 {
				t.Fatalf("registration's stops: preempts %+v, kills %+v; want one preempt of attempt 1 with the pool's 20s", preempts, kills)
			}
			for range 2 {
				h.step()
				h.sync(a)
			}
			if got := h.taskState(id, 0); got != store.TaskQueued || starts(a, id) != 1 {
				t.Fatalf("task %s with %d starts while its stray runs, want queued, not started again", got, starts(a, id))
			}
			if h.m.agents.strays.strayHeld("n1") == nil {
				t.Fatal("the stray's GPU is not held")
			}
			restarts := c.end(h, a, id)
			h.m.Tick(h.ctx)
			if len(h.m.agents.strays.holds) != 0 {
				t.Fatalf("strays held after the end: %v", h.m.agents.strays.holds)
			}
			if !restarts {
				return
			}
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning || starts(a, id) != 2 {
				t.Fatalf("task %s with %d starts after its stray ended, want running its second", got, starts(a, id))
			}
		})
	}
}

// TestStrayKilledWhenItsTaskStartedAgain: once the task's next attempt
// started elsewhere, the stray is killed at once, without a grace: two
// attempts would write one checkpoint.
func TestStrayKilledWhenItsTaskStartedAgain(t *testing.T) {
	h, ag, id := strayCase(t, 2)
	h.step()
	h.sync(ag[1], ag[1])
	if got := h.taskState(id, 0); got != store.TaskRunning || starts(ag[1], id) != 1 {
		t.Fatalf("task %s, %d starts on n2, want running there", got, starts(ag[1], id))
	}
	reply, err := ag[0].Register(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	preempts, kills := stops(reply.Commands)
	if len(preempts) != 0 || len(kills) != 1 || kills[0].GraceS != 0 || kills[0].Task != tid(id, 0, 1) {
		t.Fatalf("registration's stops: preempts %+v, kills %+v; want one kill of attempt 1 at once", preempts, kills)
	}
	if len(h.m.agents.strays.holds) != 0 {
		t.Fatalf("strays held: %v", h.m.agents.strays.holds)
	}
}

// TestStrayHoldsItsGPUs: while a stray checkpoints, no other job is
// placed on its GPU either; once it has ended, one is.
func TestStrayHoldsItsGPUs(t *testing.T) {
	h, ag, _ := strayCase(t, 1)
	a := ag[0]
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	other := h.submit(jobSpec("urgent", 1, `, "priority": 10`))
	for range 2 {
		h.step()
		h.sync(a)
	}
	if got := h.taskState(other, 0); got != store.TaskQueued || starts(a, other) != 0 {
		t.Fatalf("another job's task %s with %d starts on the stray's GPU, want queued", got, starts(a, other))
	}
	h.m.lock()
	nodes := h.m.planner.snap.Nodes
	h.m.unlock()
	if len(nodes) != 1 || nodes[0].Slots != 0 {
		t.Fatalf("snapshot nodes %+v, want n1 with its one GPU held", nodes)
	}
	for _, id := range a.Running() {
		a.Exit(id, agent.OutcomePreempted, 0)
	}
	h.sync(a)
	h.step()
	h.sync(a, a)
	if got := h.taskState(other, 0); got != store.TaskRunning {
		t.Fatalf("another job's task %s once the stray ended, want running", got)
	}
}

// TestStrayKilledWithItsJob: a user's kill of the job of a stray asked
// to checkpoint turns its checkpoint into a kill (there is nothing to
// resume); its GPU stays held until it has ended.
func TestStrayKilledWithItsJob(t *testing.T) {
	h, ag, id := strayCase(t, 1)
	a := ag[0]
	a.HoldKill = true // a kill with a grace is held; ours has none
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.m.Tick(h.ctx)
	if h.m.agents.strays.strayHeld("n1") == nil {
		t.Fatal("the stray's GPU is not held until its kill has ended")
	}
	h.sync(a) // takes the kill
	_, kills := stops(a.Commands())
	if len(kills) != 1 || kills[0].GraceS != 0 || kills[0].Task != tid(id, 0, 1) {
		t.Fatalf("kills %+v, want one of attempt 1 at once", kills)
	}
	h.sync(a)
	if len(h.m.agents.strays.holds) != 0 {
		t.Fatalf("strays held after the kill ended: %v", h.m.agents.strays.holds)
	}
}
