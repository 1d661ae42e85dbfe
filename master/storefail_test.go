package master

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// flakyStore fails every write while down is set, as a database that
// restarts or a full disk would.
type flakyStore struct {
	store.Store
	down atomic.Bool
}

var errStoreDown = errors.New("store is down")

func (s *flakyStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.Store.Update(ctx, fn)
}

func (s *flakyStore) TransitionTask(ctx context.Context, t store.TaskTransition) (store.Task, error) {
	if s.down.Load() {
		return store.Task{}, errStoreDown
	}
	return s.Store.TransitionTask(ctx, t)
}

// TestFailedExitWriteIsRetried: an exit report that the store could not
// record is applied when the agent sends it again, so the task does not
// stay running, holding its GPUs, after the store comes back.
func TestFailedExitWriteIsRetried(t *testing.T) {
	var flaky *flakyStore
	h := newHarness(t, func(o *Options) { flaky = &flakyStore{Store: o.Store}; o.Store = flaky })
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	flaky.down.Store(true)
	if _, err := a.Sync(h.ctx, 0); err == nil {
		t.Fatal("the sync succeeded while the store was down")
	}
	flaky.down.Store(false)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskCompleted {
		t.Fatalf("after the store came back and the agent resent: task %s, want completed", got)
	}
	if j := h.job(id); j.State != "completed" {
		t.Fatalf("job %s, want completed", j.State)
	}
	// Its GPU is free again: the next job starts.
	next := h.submit(jobSpec("next", 1, ""))
	h.step()
	h.sync(a)
	if got := h.taskState(next, 0); got == store.TaskQueued {
		t.Fatal("the next job does not start: the GPU is still held")
	}
}

// TestExitReportAfterAgentRestart: an agent that restarts and delivers the
// exit report its predecessor journaled gets the task recorded with its
// real outcome, not as lost.
func TestExitReportAfterAgentRestart(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, `, "preemptible": false`))
	h.step()
	h.sync(a, a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}
	// The new agent process lists nothing running, then reports the exit.
	reg := api.Register{Name: "n1", GPUs: []api.GPU{{Index: 0, UUID: "GPU-n1-0", Type: "h100"}}}
	if code := h.do("POST", "/api/v1/agents/register", reg, nil); code != 200 {
		t.Fatalf("register: %d", code)
	}
	zero := 0
	sync := api.Sync{Reports: []api.Report{{Seq: 1, Task: tid(id, 0, 1), Event: api.EventExited,
		Outcome: string(agent.OutcomeCompleted), ExitCode: &zero, At: h.clock.Now()}}}
	if code := h.do("POST", "/api/v1/agents/n1/sync", sync, nil); code != 200 {
		t.Fatalf("sync: %d", code)
	}
	if got := h.taskState(id, 0); got != store.TaskCompleted {
		t.Fatalf("task %s, want completed", got)
	}
}
