package master

import (
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

func TestLifecycleCompletes(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 8)
	id := h.submit(jobSpec("train", 2, ""))
	h.step()
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("after the pass: task %s, want starting", got)
	}
	h.sync(a) // gets the start, reports running in the next sync
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("after running report: task %s, want running", got)
	}
	starts := a.Started()
	if len(starts) != 1 || len(starts[0].GPUs) != 2 || starts[0].CheckpointDir == "" || starts[0].NodeCount != 1 {
		t.Fatalf("starts %+v", starts)
	}
	if j := h.job(id); j.State != "running" || j.Running != 1 {
		t.Fatalf("job %+v", j)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	if j := h.job(id); j.State != "completed" {
		t.Fatalf("job state %s (%s), want completed", j.State, j.Reason)
	}
}
