package master

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestLateExitOutranGrace: a task held through its node's loss that
// exited on its own before lost_node_grace ran out, with only its agent
// down, ends as its agent reports once back (completed, or failed with
// its exit code), not as the loss failed it: the task, the attempt and
// the job say so, an event says why, and the attempt is charged until
// its exit, across a restart of the master too; the GPU-seconds metric
// holds back the record the exit may cut until it knows (lostusage.go),
// then agrees with the store. An exit at or after the master's end of
// the attempt stays a loss.
func TestLateExitOutranGrace(t *testing.T) {
	for _, c := range []struct {
		name      string
		exitAfter time.Duration // after the start
		outcome   agent.Outcome
		code      int
		wantTask  store.TaskState
		wantJob   string
		wantEnd   store.AttemptState
		amended   bool
	}{
		{"completed before the grace ran out", 70 * time.Second, agent.OutcomeCompleted, 0, store.TaskCompleted, "completed", store.AttemptCompleted, true},
		{"failed before the grace ran out", 70 * time.Second, agent.OutcomeFailed, 3, store.TaskFailed, "failed", store.AttemptFailed, true},
		{"completed after the master gave up", 130 * time.Second, agent.OutcomeCompleted, 0, store.TaskFailed, "failed", store.AttemptLost, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
			a := h.agent("n1", 4)
			id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": false`))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			h.clock.Advance(20 * time.Second)
			h.sync(a)
			h.m.Tick(h.ctx)
			h.clock.Advance(35 * time.Second) // past the agent timeout: lost, held
			h.m.Tick(h.ctx)
			if h.m.nodes["n1"].up() || h.taskState(id, 0) != store.TaskRunning {
				t.Fatalf("node up %t, task %s; want lost, held running", h.m.nodes["n1"].up(), h.taskState(id, 0))
			}
			h.clock.Advance(61 * time.Second) // past the grace: failed
			h.m.Tick(h.ctx)
			end := h.clock.Now()
			if got := h.job(id).State; got != "failed" {
				t.Fatalf("job %s after the grace, want failed", got)
			}
			checkGPUSecondsMetric(t, h, "ana", 40) // the 20 s its agent vouched for; the rest held back
			h.clock.Advance(30 * time.Second)
			task := tid(id, 0, 1)
			a.Forget(task)
			code := c.code
			exited := start.Add(c.exitAfter)
			a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(c.outcome), ExitCode: &code, At: exited})
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			checkLateExit(t, h, id, c.wantTask, c.wantJob, c.wantEnd, c.amended)
			if got := h.job(id).TaskList[0].Attempts[0].ExitCode; c.amended && (got == nil || *got != c.code) {
				t.Fatalf("attempt's exit code %v, want %d", got, c.code)
			}
			if got := h.job(id).TaskList[0].Attempts[0]; got.ReportedEnd != "" || got.Stopped != "" {
				t.Fatalf("attempt %+v noted as a lost end reported late (lostnote.go), want amended or lost alone", got)
			}
			charged := end
			if c.amended {
				charged = exited
			}
			checkExitUsage(t, h, id, start, charged, end)
			h.m.Tick(h.ctx) // the node heard from again: the held record is final
			checkGPUSecondsMetric(t, h, "ana", 2*charged.Sub(start).Seconds())
			h.clock.Advance(time.Minute)
			h.start()
			checkLateExit(t, h, id, c.wantTask, c.wantJob, c.wantEnd, c.amended)
			checkExitUsage(t, h, id, start, charged, end)
		})
	}
}

// checkLateExit checks job id's state, its task's and its attempt's end,
// and whether an event says that its agent's late report amended them.
func checkLateExit(t *testing.T, h *harness, id int64, task store.TaskState, job string, end store.AttemptState, amended bool) {
	t.Helper()
	j := h.job(id)
	if j.State != job || len(j.TaskList) != 1 || j.TaskList[0].State != string(task) ||
		len(j.TaskList[0].Attempts) != 1 || j.TaskList[0].Attempts[0].EndState != string(end) {
		t.Fatalf("job %s, tasks %+v; want job %s, task %s, its attempt %s", j.State, j.TaskList, job, task, end)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	said := false
	for _, e := range evs {
		said = said || e.Index == 0 && strings.Contains(e.Reason, "while its node n1 was lost; reported when the agent returned at")
	}
	if said != amended || amended && !strings.Contains(j.TaskList[0].Reason, "while its node n1 was lost") {
		t.Fatalf("events %+v, task reason %q: amended %t, want %t", evs, j.TaskList[0].Reason, said, amended)
	}
}

// TestLateExitJobStillRunning: a late exit amends a task whose job still
// runs (another task on a node not lost), and the job then ends as its
// tasks do: an experiment whose amended trial completed ends completed
// though its other trial failed; without the amendment it failed.
func TestLateExitJobStillRunning(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
	n1, n2 := h.agent("n1", 2), h.agent("n2", 2)
	id := h.submitAs("ana", `{"name": "hp", "entrypoint": "train", "resources": {"slots": 2, "preemptible": false},
		"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2]}}, "searcher": {"name": "grid"}}`)
	h.step()
	h.sync(n1, n2, n1, n2)
	if len(n1.Running()) != 1 || len(n2.Running()) != 1 {
		t.Fatalf("n1 runs %v, n2 %v; want a trial each", n1.Running(), n2.Running())
	}
	lost, other := n1.Running()[0], n2.Running()[0]
	start := h.clock.Now()
	for i := 0; i < 24; i++ { // n1 silent: lost at 35 s, failed at 95 s
		h.clock.Advance(5 * time.Second)
		h.sync(n2)
		h.m.Tick(h.ctx)
	}
	if got := h.taskState(id, lost.TaskIndex); got != store.TaskFailed {
		t.Fatalf("trial on the lost node %s, want failed", got)
	}
	n1.Forget(lost)
	code := 0
	n1.Inject(api.Report{Task: lost, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code,
		At: start.Add(50 * time.Second)})
	n1.Master = h.srv.URL
	if _, err := n1.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(n1)
	if got := h.taskState(id, lost.TaskIndex); got != store.TaskCompleted {
		t.Fatalf("amended trial %s, want completed", got)
	}
	h.checkConsistent(t)
	n2.Exit(other, agent.OutcomeFailed, 1)
	h.sync(n2)
	h.step()
	if j := h.job(id); j.State != "completed" || !strings.Contains(j.Reason, "1 of 2 trials completed") {
		t.Fatalf("job %s (%q), want completed: 1 of 2 trials completed", j.State, j.Reason)
	}
}

// TestLateExitRequeuedStays: the loss of a preemptible task requeues it
// at once, not failing it; its agent's late report of an exit before the
// loss amends nothing (it is noted on the attempt: lostnote.go), and the
// task runs again.
func TestLateExitRequeuedStays(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
	a := h.agent("n1", 2)
	id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": true`))
	h.step()
	h.sync(a, a)
	start := h.clock.Now()
	h.clock.Advance(20 * time.Second)
	h.sync(a)
	h.m.Tick(h.ctx)
	h.clock.Advance(35 * time.Second)
	h.m.Tick(h.ctx)
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("preemptible task on the lost node %s, want queued", got)
	}
	task := tid(id, 0, 1)
	a.Forget(task)
	code := 0
	a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code,
		At: start.Add(40 * time.Second)})
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a)
	h.step()
	j := h.job(id)
	if got := j.TaskList[0]; got.State != "starting" || len(got.Attempts) != 2 || got.Attempts[0].EndState != "lost" {
		t.Fatalf("task %+v; want starting its second attempt, the first lost", got)
	}
	h.checkConsistent(t)
}

// checkGPUSecondsMetric checks allot_gpu_seconds_total of user.
func checkGPUSecondsMetric(t *testing.T, h *harness, user string, want float64) {
	t.Helper()
	_, metrics, _ := h.raw("GET", "/metrics", "")
	for _, l := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(l, "allot_gpu_seconds_total{") || !strings.Contains(l, `user="`+user+`"`) {
			continue
		}
		got, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err != nil || math.Abs(got-want) > 1e-6 {
			t.Fatalf("%s (%v); want %v", l, err, want)
		}
		return
	}
	t.Fatalf("/metrics has no GPU-seconds of %s, want %v:\n%s", user, want, grepLines(metrics, "allot_gpu_seconds"))
}
