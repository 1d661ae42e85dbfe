package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// TestLostGangCheckpoints (trial 2026-11-29b B18): a 4-slot gang over n1
// and n2 (2 GPUs each) loses n2. A preemptible one waits to resume, so
// its part on n1 gets the pool's checkpoint request (20s), not a kill,
// and holds its GPUs, and its task's start, until it has ended; one
// that is not preemptible fails, and its part on n1 is killed at once.
func TestLostGangCheckpoints(t *testing.T) {
	cases := []struct {
		name, extra string
		// task is the gang's task state after the loss.
		task store.TaskState
		// preempt: n1's part is asked to checkpoint, else killed.
		preempt bool
	}{
		{"a preemptible gang checkpoints its part on n1", `, "priority": 80`, store.TaskQueued, true},
		{"a gang that is not preemptible is killed on n1", `, "preemptible": false`, store.TaskFailed, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t,
				"pools: [{name: default, policy: priority, preemption: true, grace: 20s}]\nlost_node_grace: 0s\n")))
			n1, n2 := h.agent("n1", 2), h.agent("n2", 2)
			id := h.submit(jobSpec("train", 4, c.extra))
			h.step()
			h.sync(n1, n2, n1, n2)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("gang %s, want running over n1 and n2", got)
			}
			n1.HoldPreempt = true // it takes its time to checkpoint
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.sync(n1) // n1 stays in contact, n2 falls silent
			h.m.Tick(h.ctx)
			if h.m.nodes["n2"].up() {
				t.Fatal("n2 not lost after the agent timeout")
			}
			if got := h.taskState(id, 0); got != c.task {
				t.Fatalf("gang %s after n2's loss, want %s", got, c.task)
			}
			other := h.submit(jobSpec("urgent", 2, `, "priority": 10`))
			h.step()
			h.sync(n1)
			preempts, kills := stops(n1.Commands())
			if !c.preempt {
				// Killed at the loss, and again when n1 still lists it.
				if len(preempts) != 0 || len(kills) == 0 {
					t.Fatalf("n1's stops: preempts %+v, kills %+v; want kills only", preempts, kills)
				}
				for _, k := range kills {
					if k.GraceS != 0 || k.Task != tid(id, 0, 1) {
						t.Fatalf("n1's kill %+v, want one of attempt 1 at once", k)
					}
				}
				return
			}
			if len(kills) != 0 || len(preempts) != 1 || preempts[0].Task != tid(id, 0, 1) || preempts[0].GraceS != 20 {
				t.Fatalf("n1's stops: preempts %+v, kills %+v; want one preempt of attempt 1 with the pool's 20s", preempts, kills)
			}
			for range 2 {
				h.step()
				h.sync(n1)
			}
			if got := h.taskState(other, 0); got != store.TaskQueued || starts(n1, other) != 0 {
				t.Fatalf("another job's task %s with %d starts on n1 while the gang's part checkpoints, want queued", got, starts(n1, other))
			}
			if held := h.m.agents.strays.strayHeld("n1"); len(held) != 2 {
				t.Fatalf("n1's GPUs held for the part: %v, want both", held)
			}
			if got := leftEnded(t, h, id); len(got) != 0 {
				t.Fatalf("parts' end recorded while they run: %+v", got)
			}
			h.clock.Advance(5 * time.Second)
			ended := h.clock.Now()
			n1.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
			h.sync(n1)
			if len(h.m.agents.strays.holds) != 0 {
				t.Fatalf("parts held after their end: %v", h.m.agents.strays.holds)
			}
			// Their end is stored, for the what-if export (leftTook).
			if got := leftEnded(t, h, id); len(got) != 1 || got[0].Attempt != 1 || !got[0].At.Equal(ended) {
				t.Fatalf("parts' end events %+v, want one of attempt 1 at %s", got, ended)
			}
			h.step()
			h.sync(n1, n1)
			if got := h.taskState(other, 0); got != store.TaskRunning {
				t.Fatalf("another job's task %s once the part ended, want running on n1", got)
			}
		})
	}
}

// leftEnded lists the events of job id's lost attempts whose parts on
// nodes still up had ended (store.CauseLeftEnded).
func leftEnded(t *testing.T, h *harness, id int64) []store.Event {
	t.Helper()
	evs, err := h.m.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Event
	for _, e := range evs {
		if e.Cause == store.CauseLeftEnded {
			out = append(out, e)
		}
	}
	return out
}
