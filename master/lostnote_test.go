package master

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/store"
)

// fencedError is what an agent back from its death reports of an
// attempt its task shim's fence stopped (agentd/state.go: recoverExit).
const fencedError = "ended by SIGTERM; " + agent.FenceStopped + ": the agent was gone and the master not heard for 21s, " +
	"after which it requeues the attempt elsewhere; the agent was down when it ended (status from the task shim)"

// TestLostNoteFenced: a preemptible attempt ended lost and requeued at
// its node's loss, whose agent, back, reports it ended before the loss
// (its task shim's fence stopped it, or it ended on its own), keeps its
// loss and its task's requeue, but notes how and when it ended (the
// attempt's reported end, its exit, an event, job show's and explain's
// words) and is charged only until that exit: its usage records, `allot
// usage`, the fair share and the GPU-seconds metric, across a restart of
// the master too. An end reported at or after the loss notes nothing.
func TestLostNoteFenced(t *testing.T) {
	for _, c := range []struct {
		name      string
		exitAfter time.Duration // after the start; the loss is at 55 s
		outcome   agent.Outcome
		code      *int
		err       string
		stopped   string // "" when nothing is noted
	}{
		{"fenced", 44 * time.Second, agent.OutcomePreempted, nil, fencedError, "fenced by its task shim, checkpoint requested"},
		{"fenced and killed", 50 * time.Second, agent.OutcomePreempted, nil,
			fencedError + "; " + agent.FenceKilled, "fenced by its task shim, checkpoint requested, killed at the end of its grace"},
		{"completed while lost", 40 * time.Second, agent.OutcomeCompleted, ptrInt(0), "", "completed"},
		{"failed while lost", 40 * time.Second, agent.OutcomeFailed, ptrInt(3), "", "failed with exit code 3"},
		{"ended after the loss", 70 * time.Second, agent.OutcomePreempted, nil, fencedError, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\n")))
			a := h.agent("n1", 2)
			id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": true`))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			h.clock.Advance(20 * time.Second)
			h.sync(a)
			h.m.Tick(h.ctx)
			h.clock.Advance(35 * time.Second) // past the agent timeout: lost, requeued
			h.m.Tick(h.ctx)
			end := h.clock.Now()
			if got := h.taskState(id, 0); got != store.TaskQueued {
				t.Fatalf("preemptible task on the lost node %s, want queued", got)
			}
			checkGPUSecondsMetric(t, h, "ana", 40) // the 20 s its agent vouched for; the tail held back
			h.clock.Advance(30 * time.Second)
			task := tid(id, 0, 1)
			a.Forget(task)
			exited := start.Add(c.exitAfter)
			a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(c.outcome), ExitCode: c.code,
				Error: c.err, At: exited})
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			charged := end
			if c.stopped != "" {
				charged = exited
			}
			checkLostNote(t, h, id, c.stopped, exited, end)
			checkLostUsage(t, h, id, start, charged)
			h.m.Tick(h.ctx) // the node heard from again: the held record is final; the task starts again
			checkGPUSecondsMetric(t, h, "ana", 2*charged.Sub(start).Seconds())
			if got := h.job(id).TaskList[0]; len(got.Attempts) != 2 || got.Attempts[0].EndState != "lost" {
				t.Fatalf("task %+v; want its second attempt started, the first lost", got)
			}
			h.checkConsistent(t)
			h.start()
			checkLostNote(t, h, id, c.stopped, exited, end)
			checkLostUsage(t, h, id, start, charged)
		})
	}
}

func ptrInt(i int) *int { return &i }

// checkLostNote checks job id's first attempt: lost at end, and, when
// stopped is not "", noted as its agent reported (exited then, stopped
// so) in the API, explain, and an event; otherwise exited at its end
// with nothing noted.
func checkLostNote(t *testing.T, h *harness, id int64, stopped string, exited, end time.Time) {
	t.Helper()
	att := h.job(id).TaskList[0].Attempts[0]
	wantExit := exited
	if stopped == "" {
		wantExit = end
	}
	if att.EndState != "lost" || att.EndedAt == nil || !att.EndedAt.Equal(end) || att.ExitedAt == nil ||
		!att.ExitedAt.Equal(wantExit) || att.Stopped != stopped || (att.ReportedEnd != "") != (stopped != "") {
		t.Fatalf("attempt %+v; want lost at %v, exited at %v, stopped %q", att, end, wantExit, stopped)
	}
	var x api.Explanation
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 || len(x.Lost) != 1 ||
		x.Lost[0].Stopped != stopped || (x.Lost[0].ExitedAt != nil) != (stopped != "") ||
		x.Lost[0].ExitedAt != nil && !x.Lost[0].ExitedAt.Equal(exited) {
		t.Fatalf("explain: %d, lost %+v; want stopped %q at %v", code, x.Lost, stopped, exited)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	said := false
	for _, e := range evs {
		said = said || e.Index == 0 && e.Attempt == 1 && e.To == "lost" &&
			strings.Contains(e.Reason, "the agent of node n1, back at") && strings.Contains(e.Reason, "("+stopped+")")
	}
	if said != (stopped != "") {
		t.Fatalf("events %+v: noted %t, want %t", evs, said, stopped != "")
	}
}

// checkLostUsage checks that job id's first attempt, of 2 GPUs, is
// charged from start until charged: its usage records, `allot usage`
// and ana's fair-share usage.
func checkLostUsage(t *testing.T, h *harness, id int64, start, charged time.Time) {
	t.Helper()
	recs, err := h.st.Usage(h.ctx, store.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sum, to := 0.0, start
	for _, u := range recs {
		if u.JobID == id && u.Attempt == 1 {
			sum += u.GPUSeconds
			if u.End.After(to) {
				to = u.End
			}
		}
	}
	want := 2 * charged.Sub(start).Seconds()
	if math.Abs(sum-want) > 1e-6 || !to.Equal(charged) {
		t.Fatalf("usage records %+v: %v GPU-seconds to %v; want %v to %v", recs, sum, to, want, charged)
	}
	var u api.Usage
	if code := h.do("GET", "/api/v1/usage?since=1d&by=user", nil, &u); code != 200 || math.Abs(u.TotalGPUHours-want/3600) > 1e-6 {
		t.Fatalf("GET /usage: %d %+v, want %v GPU-hours", code, u, want/3600)
	}
	k := usageKey{"default", h.job(id).Project, "ana"}
	now := h.clock.Now().Unix()
	f := newFairShare(h.m.fair.decay)
	f.charge(k.pool, k.project, k.user, start.Unix(), charged.Unix(), want)
	f.usage.Advance(now)
	h.m.lock()
	h.m.fair.usage.Advance(now)
	got := h.m.fair.usage.Get(k)
	h.m.unlock()
	if math.Abs(got-f.usage.Get(k)) > 1e-9*f.usage.Get(k) {
		t.Fatalf("fair-share usage of ana %v, want %v", got, f.usage.Get(k))
	}
}

// TestLostNoteReplay: the what-if export of a loss whose attempt its
// agent reported fenced before it (lostnote.go) replays to the decisions
// the master made: the requeue at the loss, the restart on the other
// node, the attempt's exit before its end read as a late exit.
func TestLostNoteReplay(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\npools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 2)
	b := h.agent("n2", 2)
	t0 := h.clock.Now()
	id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": true`))
	h.step()
	h.sync(a, a, b)
	start := h.clock.Now()
	h.clock.Advance(20 * time.Second)
	h.sync(a, b)
	h.m.Tick(h.ctx)
	for i := 0; i < 7; i++ { // n1 falls silent: lost at 55 s, its task requeued onto n2
		h.clock.Advance(5 * time.Second)
		h.sync(b)
		h.m.Tick(h.ctx)
	}
	h.sync(b, b)
	h.clock.Advance(10 * time.Second)
	h.sync(b)
	h.m.Tick(h.ctx)
	task := tid(id, 0, 1)
	a.Forget(task)
	a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomePreempted), Error: fencedError,
		At: start.Add(44 * time.Second)})
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a, b)
	h.m.Tick(h.ctx)
	h.clock.Advance(10 * time.Second)
	h.sync(a, b)
	h.m.Tick(h.ctx)
	if att := h.job(id).TaskList[0].Attempts; len(att) != 2 || att[0].ReportedEnd != "preempted" || att[1].EndState != "" {
		t.Fatalf("attempts %+v; want the first lost, noted preempted, the second running", att)
	}
	q := window(t0, h.clock.Now())
	sc, body := exportScenario(t, h, q)
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := decisionlog.Diff(logText(live.Lines), decisionlog.Format(replayed), 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
	if !strings.Contains(body, "late_exits") {
		t.Errorf("scenario without the attempt's late exit:\n%s", body)
	}
}
