package master

import (
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestFinishedJobsLeaveTheMirror: the master's memory follows its live
// jobs, not its history. A job leaves the mirror's map when it ends and
// its place in the scheduling order on the next pass, and is then read
// from the store; round after round of jobs leaves nothing behind.
func TestFinishedJobsLeaveTheMirror(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	var all []int64
	for round := range 3 {
		var ids []int64
		for range 4 {
			ids = append(ids, h.submit(jobSpec("train", 1, "")))
		}
		h.step()
		h.sync(a, a)
		for _, id := range ids {
			if !a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0) {
				t.Fatalf("round %d: job %d is not running on the agent", round, id)
			}
		}
		h.sync(a)
		h.step() // compacts the order
		h.m.lock()
		jobs, order, logc := len(h.m.jobs), len(h.m.order), len(h.m.logc)
		h.m.mu.Unlock()
		if jobs != 0 || order != 0 || logc != 0 {
			t.Fatalf("round %d: the mirror holds %d jobs, %d in order, %d log waits after they all ended, want none",
				round, jobs, order, logc)
		}
		all = append(all, ids...)
	}
	for _, id := range all {
		if got := h.job(id).State; got != "completed" {
			t.Fatalf("job %d: %s from the store, want completed", id, got)
		}
	}
	var page api.JobPage
	if code := h.do("GET", "/api/v1/jobs?limit=100", nil, &page); code != 200 || len(page.Jobs) != len(all) {
		t.Fatalf("GET /jobs: %d, %d jobs, want %d", code, len(page.Jobs), len(all))
	}
}
