package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestLateExitGang: a two-node attempt that the master failed as lost
// (n2 lost past lost_node_grace) is amended once every part's exit is
// known to have come before the master's end: a part on a node not lost
// that exited on its own in time (kept with the end: keepPartExits), and
// parts whose agents report them late (kept until the last: lateParts).
// It then ends as its parts did, as the normal finish rules (every part
// completed: completed; else failed, with the failed part's exit code),
// charged until the last part's exit. A part the master killed at its
// end leaves the attempt lost.
func TestLateExitGang(t *testing.T) {
	completed, failed := agent.OutcomeCompleted, agent.OutcomeFailed
	for _, c := range []struct {
		name     string
		n1       agent.Outcome // n1's part's exit at 50 s; "" for none: killed at the master's end
		n1Lost   bool          // n1 falls silent with n2, and reports its part's exit late, first
		n2       agent.Outcome // n2's part's exit at 70 s, reported late
		n2Code   int
		wantTask store.TaskState
		wantJob  string
		wantEnd  store.AttemptState
		wantCode int
	}{
		{"every part completed", completed, false, completed, 0, store.TaskCompleted, "completed", store.AttemptCompleted, 0},
		{"a part failed", completed, false, failed, 3, store.TaskFailed, "failed", store.AttemptFailed, 3},
		{"both nodes lost, every part completed", completed, true, completed, 0, store.TaskCompleted, "completed", store.AttemptCompleted, 0},
		{"a part killed at the end", "", false, completed, 0, store.TaskFailed, "failed", store.AttemptLost, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
			n1, n2 := h.agent("n1", 2), h.agent("n2", 2)
			id := h.submitAs("ana", jobSpec("gang", 4, `, "preemptible": false`))
			h.step()
			h.sync(n1, n2, n1, n2)
			start := h.clock.Now()
			task := tid(id, 0, 1)
			end := failGang(t, h, id, n1, n2, c.n1, c.n1Lost)
			h.clock.Advance(30 * time.Second)
			if c.n1Lost {
				returnWithExit(t, h, n1, task, c.n1, 0, start.Add(50*time.Second))
				if got := h.taskState(id, 0); got != store.TaskFailed {
					t.Fatalf("after n1's late exit alone: task %s, want failed until n2's part is known", got)
				}
			}
			exited := start.Add(70 * time.Second)
			returnWithExit(t, h, n2, task, c.n2, c.n2Code, exited)
			h.m.Tick(h.ctx)
			j := h.job(id)
			tk := j.TaskList[0]
			if j.State != c.wantJob || tk.State != string(c.wantTask) || tk.Attempts[0].EndState != string(c.wantEnd) {
				t.Fatalf("job %s, task %s, attempt %s; want %s, %s, %s", j.State, tk.State, tk.Attempts[0].EndState,
					c.wantJob, c.wantTask, c.wantEnd)
			}
			charged := end
			if c.wantEnd != store.AttemptLost {
				charged = exited
				if code := tk.Attempts[0].ExitCode; code == nil || *code != c.wantCode ||
					!strings.Contains(tk.Reason, "while its node n2 was lost") {
					t.Fatalf("attempt's exit code %v, task reason %q; want %d, saying why", code, tk.Reason, c.wantCode)
				}
			}
			checkExitUsageOf(t, h, id, 4, start, charged, end)
			checkGPUSecondsMetric(t, h, "ana", 4*charged.Sub(start).Seconds())
		})
	}
}

// failGang runs job id's two-node attempt on n1 and n2 until n2 (and n1
// too when n1Lost) falls silent at 20 s and the master fails the attempt
// as lost once lost_node_grace is over; n1's part exits at 50 s with
// n1Exit unless that is "". It returns when the master ended it.
func failGang(t *testing.T, h *harness, id int64, n1, n2 *mastertest.Agent, n1Exit agent.Outcome, n1Lost bool) time.Time {
	t.Helper()
	start := h.clock.Now()
	h.clock.Advance(20 * time.Second)
	h.sync(n1, n2)
	h.m.Tick(h.ctx)
	for i := 0; i < 30 && h.taskState(id, 0) != store.TaskFailed; i++ {
		h.clock.Advance(5 * time.Second)
		if n1Exit != "" && h.clock.Now().Sub(start) == 50*time.Second {
			if n1Lost {
				n1.Forget(tid(id, 0, 1))
			} else {
				n1.Exit(tid(id, 0, 1), n1Exit, 0)
			}
		}
		if !n1Lost {
			h.sync(n1)
		}
		h.m.Tick(h.ctx)
	}
	if got := h.taskState(id, 0); got != store.TaskFailed || h.m.nodes["n2"].up() {
		t.Fatalf("task %s, n2 up %t; want failed as lost, n2 lost", got, h.m.nodes["n2"].up())
	}
	return h.clock.Now()
}

// returnWithExit registers a's agent again, reporting that its part of
// attempt id exited as outcome (code) at exited, and syncs it.
func returnWithExit(t *testing.T, h *harness, a *mastertest.Agent, id agent.TaskID, outcome agent.Outcome, code int, exited time.Time) {
	t.Helper()
	a.Forget(id)
	a.Inject(api.Report{Task: id, Event: api.EventExited, Outcome: string(outcome), ExitCode: &code, At: exited})
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a)
}
