package master

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// countingStore counts transactions, and with failCommit set runs each
// one to its end and then rolls it back, as a commit that fails would:
// every write of the batch has been made (and the mirror changed) when
// the failure comes.
type countingStore struct {
	store.Store
	updates    atomic.Int64
	failCommit atomic.Bool
}

var errCommit = errors.New("commit failed")

func (s *countingStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if s.failCommit.Load() {
			return errCommit
		}
		return nil
	})
}

// queuedSyncs holds mu while fn starts syncs, until n of them wait in the
// queue, then lets them all through at once: they share one batch.
func queuedSyncs(t *testing.T, h *harness, n int, fn func()) {
	t.Helper()
	h.m.lock()
	fn()
	err := waitQueued(h, n)
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
}

// waitQueued waits until n syncs wait in the queue.
func waitQueued(h *harness, n int) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.m.agents.syncMu.Lock()
		q := len(h.m.agents.syncQ)
		h.m.agents.syncMu.Unlock()
		if q == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d syncs queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// startOn submits one 1-GPU job per agent, starts them and delivers the
// starts; the agents then hold a running report each.
func startOn(t *testing.T, h *harness, agents []*mastertest.Agent) []int64 {
	t.Helper()
	var ids []int64
	for range agents {
		ids = append(ids, h.submit(jobSpec("train", 1, "")))
	}
	h.step()
	h.sync(agents...)
	for i, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskStarting {
			t.Fatalf("job %d: task %s, want starting", i, got)
		}
	}
	return ids
}

func syncAll(h *harness, agents []*mastertest.Agent) []error {
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = a.Sync(h.ctx, 0)
		}()
	}
	wg.Wait()
	return errs
}

// TestSyncsShareOneCommit: syncs that arrive while the master is busy
// have their reports stored in one transaction, and each is acknowledged.
func TestSyncsShareOneCommit(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	var agents []*mastertest.Agent
	for _, name := range []string{"n1", "n2", "n3", "n4"} {
		agents = append(agents, h.agent(name, 1))
	}
	ids := startOn(t, h, agents)
	before := cs.updates.Load()
	var errs []error
	done := make(chan struct{})
	queuedSyncs(t, h, len(agents), func() {
		go func() {
			errs = syncAll(h, agents)
			close(done)
		}()
	})
	<-done
	for i, err := range errs {
		if err != nil {
			t.Fatalf("sync of %s: %v", agents[i].Name, err)
		}
	}
	if got := cs.updates.Load() - before; got != 1 {
		t.Fatalf("%d transactions for the running reports of 4 concurrent syncs, want 1", got)
	}
	for i, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskRunning {
			t.Fatalf("job %d: task %s, want running", i, got)
		}
	}
	h.m.lock()
	defer h.m.mu.Unlock()
	for _, a := range agents {
		if n := h.m.nodes[a.Name]; n.acked != 1 {
			t.Fatalf("node %s: acked %d, want 1", a.Name, n.acked)
		}
	}
}

// TestFailedBatchActsOnNothing: when the commit of a batch fails, no sync
// of it is acknowledged, the mirror is as before (the exited task still
// holds its GPU, no job state moved), and no command goes out; the
// agents' resent reports are then applied.
func TestFailedBatchActsOnNothing(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	agents := []*mastertest.Agent{h.agent("n1", 1), h.agent("n2", 1)}
	ids := startOn(t, h, agents)
	h.sync(agents...)
	// n1's task exits; n2 reports nothing new but syncs too.
	if !agents[0].Exit(tid(ids[0], 0, 1), agent.OutcomeCompleted, 0) {
		t.Fatal("n1 does not run its task")
	}
	waiting := h.submit(jobSpec("waiting", 1, ""))
	h.step()
	cs.failCommit.Store(true)
	var errs []error
	done := make(chan struct{})
	queuedSyncs(t, h, 2, func() {
		go func() {
			errs = syncAll(h, agents)
			close(done)
		}()
	})
	<-done
	for i, err := range errs {
		if err == nil {
			t.Fatalf("sync of %s succeeded although its batch failed", agents[i].Name)
		}
	}
	h.m.lock()
	for _, a := range agents {
		n := h.m.nodes[a.Name]
		if n.acked != 1 || len(n.commands) != 0 {
			h.m.mu.Unlock()
			t.Fatalf("node %s after the failed batch: acked %d, commands %v; want 1 and none", a.Name, n.acked, n.commands)
		}
	}
	j := h.m.jobs[ids[0]]
	if j == nil || j.rec.State != store.JobRunning || j.tasks[0].rec.State != store.TaskRunning || j.tasks[0].att == nil ||
		h.m.nodes["n1"].used[0] != j.tasks[0] {
		h.m.mu.Unlock()
		t.Fatalf("the exited job's mirror changed although nothing was stored: %+v", j)
	}
	h.m.mu.Unlock()
	if got := h.taskState(ids[0], 0); got != store.TaskRunning {
		t.Fatalf("store: task %s, want still running", got)
	}
	// The failed pass started nothing either.
	h.step()
	if got := h.taskState(waiting, 0); got != store.TaskQueued {
		t.Fatalf("a job started on the GPU of an exit that was not stored: %s", got)
	}

	cs.failCommit.Store(false)
	h.sync(agents...)
	if got := h.taskState(ids[0], 0); got != store.TaskCompleted {
		t.Fatalf("after the resent report: task %s, want completed", got)
	}
	if got := h.job(ids[0]).State; got != "completed" {
		t.Fatalf("job %s, want completed", got)
	}
	h.step()
	h.sync(agents...)
	if got := h.taskState(waiting, 0); got == store.TaskQueued {
		t.Fatal("the GPU freed by the stored exit was not used")
	}
}

// TestRunningThenExitInOneBatch: two syncs of one node in one batch, the
// second resending the first's running report with an exit after it, are
// applied in order: the task ends completed, each report once.
func TestRunningThenExitInOneBatch(t *testing.T) {
	h := newHarness(t)
	agents := []*mastertest.Agent{h.agent("n1", 1)}
	ids := startOn(t, h, agents)
	id := tid(ids[0], 0, 1)
	zero := 0
	running := api.Report{Seq: 1, Task: id, Event: api.EventRunning, At: h.clock.Now()}
	exited := api.Report{Seq: 2, Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted),
		ExitCode: &zero, At: h.clock.Now()}
	codes := make([]int, 2)
	var wg sync.WaitGroup
	post := func(i int, s api.Sync) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = h.do("POST", "/api/v1/agents/n1/sync", s, nil)
		}()
	}
	h.m.lock()
	post(0, api.Sync{Reports: []api.Report{running}})
	err := waitQueued(h, 1)
	if err == nil {
		post(1, api.Sync{Reports: []api.Report{running, exited}})
		err = waitQueued(h, 2)
	}
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Fatalf("sync %d: %d", i, c)
		}
	}
	if got := h.taskState(ids[0], 0); got != store.TaskCompleted {
		t.Fatalf("task %s, want completed", got)
	}
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: ids[0]})
	if err != nil || len(atts) != 1 || atts[0].RunningAt.IsZero() || atts[0].EndState != store.AttemptCompleted {
		t.Fatalf("attempts %+v (%v), want one that ran and completed", atts, err)
	}
}

// TestHistoryRetention: a job that ended more than history_retention ago
// is forgotten by the tick; a job that ended since stays.
func TestHistoryRetention(t *testing.T) {
	cfg := config.Default()
	cfg.HistoryRetention = time.Hour
	h := newHarness(t, withConfig(cfg))
	agents := []*mastertest.Agent{h.agent("n1", 1)}
	old := startOn(t, h, agents)[0]
	h.sync(agents...)
	agents[0].Exit(tid(old, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(agents...)
	if got := h.job(old).State; got != "completed" {
		t.Fatalf("job %s, want completed", got)
	}
	h.clock.Advance(2 * time.Hour)
	recent := startOn(t, h, agents)[0]
	h.m.Tick(h.ctx)
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", old), nil, nil); code != 404 {
		t.Fatalf("GET the job that ended 2h ago with a retention of 1h: %d, want 404", code)
	}
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", recent), nil, nil); code != 200 {
		t.Fatalf("GET the running job: %d, want 200", code)
	}
}

// TestSubmitDoesNotWaitForMu: a submission is stored and answered while
// another holds mu (as a batch does across its commit), and is in the
// mirror for whoever takes mu next.
func TestSubmitDoesNotWaitForMu(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 2)
	h.submit(jobSpec("first", 1, "")) // builds the feasibility view
	done := make(chan int64, 1)
	h.m.lock()
	go func() { done <- h.submit(jobSpec("second", 1, "")) }()
	var id int64
	select {
	case id = <-done:
	case <-time.After(10 * time.Second):
		h.m.mu.Unlock()
		t.Fatal("the submission waited for mu")
	}
	h.m.mu.Unlock()
	if got := h.job(id).State; got != "queued" {
		t.Fatalf("job %d: %s, want queued", id, got)
	}
	h.step()
	if got := h.taskState(id, 0); got != store.TaskStarting {
		t.Fatalf("task %s, want starting", got)
	}
}

// TestPassIsOneTransaction: a pass's starts and the job states they imply
// are stored in one transaction.
func TestPassIsOneTransaction(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	a := h.agent("n1", 4)
	var ids []int64
	for range 4 {
		ids = append(ids, h.submit(jobSpec("train", 1, "")))
	}
	before := cs.updates.Load()
	h.step()
	if got := cs.updates.Load() - before; got != 1 {
		t.Fatalf("%d transactions for a pass that starts 4 jobs, want 1", got)
	}
	for _, id := range ids {
		if got := h.job(id).State; got != "running" {
			t.Fatalf("job %d: %s, want running", id, got)
		}
	}
	h.sync(a)
	if got := len(a.Started()); got != 4 {
		t.Fatalf("the agent got %d starts, want 4", got)
	}
}

// TestFailedNodeLossChangesNothing: a node's loss and the attempts it
// ends share one batch; when its commit fails the node is still up with
// its tasks, and the next tick loses it.
func TestFailedNodeLossChangesNothing(t *testing.T) {
	var cs *countingStore
	h := newHarness(t, func(o *Options) { cs = &countingStore{Store: o.Store}; o.Store = cs })
	a := h.agent("n1", 2)
	var ids []int64
	for range 2 {
		ids = append(ids, h.submit(jobSpec("train", 1, `, "preemptible": true`)))
	}
	h.step()
	h.sync(a, a)
	h.m.Tick(h.ctx) // probes the store now, so that the next tick does not
	h.clock.Advance(2 * DefaultAgentTimeout)
	cs.failCommit.Store(true)
	h.m.Tick(h.ctx)
	cs.failCommit.Store(false)
	var nodes []api.Node
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	if len(nodes) != 1 || nodes[0].State != "up" {
		t.Fatalf("nodes after a loss that was not stored: %+v, want n1 up", nodes)
	}
	for _, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskRunning {
			t.Fatalf("job %d: task %s after a loss that was not stored, want running", id, got)
		}
	}
	h.m.Tick(h.ctx)
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	if len(nodes) != 1 || nodes[0].State != "lost" {
		t.Fatalf("nodes after the next tick: %+v, want n1 lost", nodes)
	}
	for _, id := range ids {
		if got := h.taskState(id, 0); got != store.TaskQueued {
			t.Fatalf("job %d: task %s after its node was lost, want queued (preemptible)", id, got)
		}
	}
}
