package master

import (
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// An agent sends report syncs (WaitS 0) while the reply to its long poll
// is on its way, so syncs that it built before executing a start can reach
// the master right after the start went out. They lack the attempt
// without meaning that the reply was lost: the attempt must not be lost.
// (Found by e2e/seed001_test.go: a burst of exits ended a just-started
// ASHA trial as "lost: node gpu does not run attempt 2" 20 ms after its
// start, while it ran.)
func TestSyncsBuiltBeforeAStartDoNotLoseIt(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a) // the long poll's reply carries the start; the agent runs it
	if started := a.Started(); len(started) != 1 {
		t.Fatalf("the agent started %d attempts, want 1", len(started))
	}
	for range 2 {
		// Report syncs built before the agent executed the reply.
		h.do("POST", "/api/v1/agents/n1/sync", api.Sync{}, nil)
		if got := h.taskState(id, 0); got != store.TaskStarting {
			t.Fatalf("after a sync built before the start ran: task %s, want starting", got)
		}
	}
	h.sync(a) // its running report
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("after the running report: task %s, want running", got)
	}
	if j := h.job(id); len(j.TaskList[0].Attempts) != 1 {
		t.Fatalf("attempts %+v, want the first only", j.TaskList[0].Attempts)
	}
}
