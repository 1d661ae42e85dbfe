package master

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// stateWatch checks every change of a task's state that a master's
// setTask records against the state graph (lifecycle.TaskEdge), as
// lifecycle's tests watch the Cluster's records (lifecycle.WatchStates),
// and that the task's record (mtask.TaskRecord, which Enter changed)
// says what its stored row says.
type stateWatch struct {
	mu   sync.Mutex
	seen map[string]int // "from → to" → times taken
	err  error          // the first change found wrong
}

// watchTaskStates turns the watch on for m (the harness does for every
// master it starts): at the test's end it fails the test on the first
// change the watch found wrong, a task of the mirror whose record does
// not say its row's state, or a job whose counts of its tasks are not
// what its tasks' rows say (miscounted), after any change or at the end.
func watchTaskStates(t testing.TB, m *Master) *stateWatch {
	w := &stateWatch{seen: map[string]int{}}
	m.mu.Lock()
	m.watch = w.changed
	m.mu.Unlock()
	t.Cleanup(func() {
		m.mu.Lock()
		for _, j := range m.jobs {
			for _, tk := range j.tasks {
				w.apart(tk)
			}
			w.miscounted(j)
		}
		m.mu.Unlock()
		if err := w.first(); err != nil {
			t.Errorf("task states: %v", err)
		}
	})
	return w
}

// changed is the master's watch: tk moved from from to to. Callers hold
// the master's mu.
func (w *stateWatch) changed(tk *mtask, from, to store.TaskState, amend bool) {
	w.apart(tk)
	w.miscounted(tk.job)
	if from == to {
		return // a new row in the same state, no change
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[string(from)+" → "+string(to)]++
	err := landingEdge(from, to)
	if amend {
		err = amendEdge(from, to)
	}
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("task %s: %w", tk.id(), err)
	}
}

// landingEdge is TaskEdge as the master's mirror walks the graph: one
// change at a time, but a checkpoint's landing and what follows it at
// once (requeued, restarted where a move or resize reserved, or failed
// by its exit actions) are stored together (finishTransitions: preempting
// → preempted, then preempted → on) and recorded as one change.
func landingEdge(from, to store.TaskState) error {
	err := lifecycle.TaskEdge(from, to)
	if err == nil || from != store.TaskPreempting {
		return err
	}
	return lifecycle.TaskEdge(store.TaskPreempted, to)
}

// amendEdge is the change a late exit's amendment may make: a task the
// master ended failed at its attempt's loss ends completed or failed by
// its exit (store.AmendLostEnd).
func amendEdge(from, to store.TaskState) error {
	if from == store.TaskFailed && (to == store.TaskCompleted || to == store.TaskFailed) {
		return nil
	}
	return fmt.Errorf("a late exit amended task %q → %q; only a lost end (failed) may be amended, to completed or failed", from, to)
}

// apart notes a task whose record's state is not its row's.
func (w *stateWatch) apart(tk *mtask) {
	if tk.State == tk.rec.State {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("task %s: its record says %q, its row %q", tk.id(), tk.State, tk.rec.State)
	}
}

// miscounted notes a job whose counts of its tasks (mjob.count, which
// setTask moves by lifecycle.JobTasks.Move) are not what a scan of its
// tasks' rows says of the job (holding attempts: starting, running,
// preempting, killing, and of those killing; ended: completed, failed,
// killed; the rest waiting, Queued), written out here apart from the
// counting.
func (w *stateWatch) miscounted(j *mjob) {
	var want lifecycle.JobTasks
	want.Tasks = len(j.tasks)
	for _, tk := range j.tasks {
		switch tk.rec.State {
		case store.TaskStarting, store.TaskRunning, store.TaskPreempting:
			want.Active++
		case store.TaskKilling:
			want.Active++
			want.Killing++
		case store.TaskCompleted:
			want.Ended++
		case store.TaskFailed:
			want.Ended++
			want.Failed++
		case store.TaskKilled:
			want.Ended++
			want.Killed++
		}
	}
	if j.count == want {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("job %d counts its tasks %+v, its tasks' rows say %+v", j.rec.ID, j.count, want)
	}
}

func (w *stateWatch) first() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// took reports how many times the watch saw a change from → to.
func (w *stateWatch) took(from, to store.TaskState) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[string(from)+" → "+string(to)]
}

// TestTaskRecordMove drives a master's tasks through a move and checks
// that its setTask went by the task record's transition
// (lifecycle.TaskRecord.Enter): each change on the graph (the
// harness's watch), the moved tasks' reservations let go of as they
// left preempting, and no requeue counted for a move.
func TestTaskRecordMove(t *testing.T) {
	h := newHarness(t)
	a1, a2, trials := fragment(t, h)
	h.submit(jobSpec("whole", 8, ""))
	h.step()
	h.m.lock()
	moving := 0
	for _, tk := range h.m.jobs[trials].tasks {
		if tk.Replacement.Replacing() {
			moving++
			if tk.State != store.TaskPreempting || tk.next == nil {
				t.Errorf("task %s replacing while %s, next %v: want preempting with GPUs reserved", tk.id(), tk.State, tk.next)
			}
		}
	}
	h.m.unlock()
	if moving != 2 {
		t.Fatalf("%d trials moving, want 2", moving)
	}
	h.sync(a1, a2, a1, a2)
	h.step()
	h.sync(a1, a2, a1, a2)
	h.m.lock()
	for _, tk := range h.m.jobs[trials].tasks {
		if tk.Replacement.Replacing() || tk.next != nil || tk.Retries != 0 {
			t.Errorf("task %s after its move: replacing %t, next %v, retries %d; want none, none, 0 (a move is no requeue)",
				tk.id(), tk.Replacement.Replacing(), tk.next, tk.Retries)
		}
	}
	h.m.unlock()
	// Each landing and the restart that follows it is one change of the
	// mirror's (landingEdge).
	if n := h.states.took(store.TaskPreempting, store.TaskStarting); n != 2 {
		t.Errorf("preempting → (preempted →) starting taken %d times, want 2 (the moves' landings)", n)
	}
}

// TestTaskRecordRequeue preempts a LOW job for a HIGH one twice: its
// task goes preempting → preempted → queued each time, its record
// counting each requeue once (Enter), and a restarted master counts
// them again from the event log.
func TestTaskRecordRequeue(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools: [{name: default, policy: priority, preemption: true}]\n")))
	a := h.agent("n1", 4)
	a.HoldPreempt = true
	low := h.submit(jobSpec("low", 4, `, "priority": 80`))
	h.step()
	h.sync(a, a)
	for n := 1; n <= 2; n++ {
		high := h.submit(jobSpec(fmt.Sprintf("high%d", n), 4, `, "priority": 10`))
		h.step()
		h.sync(a)
		a.Exit(tid(low, 0, n), agent.OutcomePreempted, 0)
		h.sync(a)
		if got := h.taskState(low, 0); got != store.TaskQueued {
			t.Fatalf("preemption %d: low's task %s, want queued", n, got)
		}
		if got := h.retries(low, 0); got != int32(n) {
			t.Errorf("preemption %d: low's task counts %d requeues, want %d", n, got, n)
		}
		if got := h.states.took(store.TaskPreempting, store.TaskQueued); got != n {
			t.Errorf("preemption %d: preempting → (preempted →) queued taken %d times, want %d", n, got, n)
		}
		// HIGH starts and ends; LOW runs again.
		h.step()
		h.sync(a, a)
		a.Exit(tid(high, 0, 1), agent.OutcomeCompleted, 0)
		h.sync(a)
		h.step()
		h.sync(a, a)
		if got := h.taskState(low, 0); got != store.TaskRunning {
			t.Fatalf("after HIGH %d ended: low's task %s, want running", n, got)
		}
	}
	h.start()
	if got := h.retries(low, 0); got != 2 {
		t.Errorf("after a restart: low's task counts %d requeues, want 2", got)
	}
	if s := strings.Join(eventsOf(t, h, low, 0), " "); strings.Count(s, "preempting→preempted preempted→queued") != 2 {
		t.Errorf("low's task went %s, want preempting→preempted→queued twice", s)
	}
}

// retries is the requeues the master's record of task index of job id
// counts.
func (h *harness) retries(id int64, index int) int32 {
	h.m.lock()
	defer h.m.unlock()
	return h.m.jobs[id].tasks[index].Retries
}
