package master

import (
	"fmt"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// jobWatch checks every change of a job's state that a master's setJob
// records against the state graph (lifecycle.JobEdge), as stateWatch
// checks its tasks', and that the job's record (mjob.JobRecord, which
// Enter changed) says what its stored row says: its state, and whether
// it is held.
type jobWatch struct {
	mu   sync.Mutex
	seen map[string]int // "from → to" → times taken
	err  error          // the first change found wrong
	m    *Master
}

// watchJobStates turns the watch on for the master New makes from opt
// (the harness does for every master it starts), from before its
// restore; on (once New returned) lets the watch read the mirror. At the
// test's end it fails the test on the first change the watch found
// wrong, or a job of the mirror whose record does not say its row.
func watchJobStates(t testing.TB, opt *Options) *jobWatch {
	w := &jobWatch{seen: map[string]int{}}
	opt.watchJob = w.changed
	t.Cleanup(func() {
		if w.m != nil {
			w.m.mu.Lock()
			for _, j := range w.m.jobs {
				w.apart(j)
			}
			w.m.mu.Unlock()
		}
		if err := w.first(); err != nil {
			t.Errorf("job states: %v", err)
		}
	})
	return w
}

// on notes the master the watch is on, for the end's look at its mirror.
func (w *jobWatch) on(m *Master) { w.m = m }

// changed is the master's job watch: j moved from from to to. Callers
// hold the master's mu, or are its New.
func (w *jobWatch) changed(j *mjob, from, to store.JobState) {
	w.apart(j)
	if from == to {
		return // a new row in the same state (a hold, a change, an end moved), no change
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[string(from)+" → "+string(to)]++
	if err := lifecycle.JobEdge(from, to); err != nil && w.err == nil {
		w.err = fmt.Errorf("job %d: %w", j.rec.ID, err)
	}
}

// apart notes a job whose record does not say what its row says.
func (w *jobWatch) apart(j *mjob) {
	if j.State == j.rec.State && j.OnHold == j.rec.Held() && j.Experiment == (j.rec.Kind == store.KindExperiment) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("job %d: its record says %q (held %t), its row %q (held %t)",
			j.rec.ID, j.State, j.OnHold, j.rec.State, j.rec.Held())
	}
}

func (w *jobWatch) first() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// took reports how many times the watch saw a change from → to.
func (w *jobWatch) took(from, to store.JobState) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[string(from)+" → "+string(to)]
}

// TestJobRecordLifecycle drives two jobs through a master, with a restart
// between, and checks that its setJob went by the job record's
// transition (lifecycle.JobRecord.Enter): each change on the graph (the
// harness's watch), the record saying its row's state and hold, one job
// held, released, started and completed, the other started and killed.
func TestJobRecordLifecycle(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	done := h.submit(jobSpec("done", 2, ""))
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/hold", done), nil, nil); code != 200 {
		t.Fatalf("hold: %d", code)
	}
	if st, held := h.jobRecord(done); st != store.JobQueued || !held {
		t.Fatalf("held job's record: %s, held %t; want queued, held", st, held)
	}
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/release", done), nil, nil); code != 200 {
		t.Fatalf("release: %d", code)
	}
	killed := h.submit(jobSpec("killed", 2, ""))
	h.step()
	h.sync(a, a)
	for _, id := range []int64{done, killed} {
		if st, held := h.jobRecord(id); st != store.JobRunning || held {
			t.Fatalf("job %d's record: %s, held %t; want running, not held", id, st, held)
		}
	}
	h.start() // its restore settles each job again, watched
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.jobRecord(done); st != store.JobRunning {
		t.Fatalf("after a restart: job's record %s, want running", st)
	}
	a.Exit(tid(done, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", killed), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.sync(a)
	h.step()
	for id, want := range map[int64]string{done: "completed", killed: "killed"} {
		if got := h.job(id).State; got != want {
			t.Errorf("job %d: %s, want %s", id, got, want)
		}
	}
	if n := h.jobStates.took(store.JobRunning, store.JobCompleted); n != 1 {
		t.Errorf("running → completed taken %d times, want 1", n)
	}
	if n := h.jobStates.took(store.JobRunning, store.JobKilled); n != 1 {
		t.Errorf("running → killed taken %d times, want 1", n)
	}
}

// jobRecord is the state and hold that the master's record of job id
// says, with the test failed where its row says otherwise.
func (h *harness) jobRecord(id int64) (store.JobState, bool) {
	h.t.Helper()
	h.m.lock()
	defer h.m.unlock()
	j := h.m.jobs[id]
	if j == nil {
		h.t.Fatalf("job %d is not in the mirror", id)
	}
	if j.State != j.rec.State || j.OnHold != j.rec.Held() {
		h.t.Errorf("job %d: record %s (held %t), row %s (held %t)", id, j.State, j.OnHold, j.rec.State, j.rec.Held())
	}
	return j.State, j.OnHold
}
