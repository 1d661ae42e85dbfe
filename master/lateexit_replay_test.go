package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/sim"
)

// TestLateExitReplay: the what-if export of a loss that a late exit
// amended (lateexit.go) replays to the decisions the master made: the
// amended attempt is a completed one whose exit came late (late_exits),
// of the length the master held it, and the simulator, holding the task
// through its node's loss, completes it at the end of the grace, where
// the master ended it. (A master whose grace check comes a second after
// the grace's end differs from the replay by that second, amended or
// not: the simulator ends the held task at the grace's end.)
func TestLateExitReplay(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\npools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 2)
	b := h.agent("n2", 2)
	t0 := h.clock.Now()
	id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": false`))
	h.step()
	h.sync(a, a, b)
	start := h.clock.Now()
	h.clock.Advance(20 * time.Second)
	h.sync(a, b)
	h.m.Tick(h.ctx)
	for i := 0; i < 7; i++ { // n1 falls silent: lost at 55 s, its task held
		h.clock.Advance(5 * time.Second)
		h.sync(b)
		h.m.Tick(h.ctx)
	}
	for i := 0; i < 12; i++ { // the grace runs out at 115 s: the task fails as lost
		h.clock.Advance(5 * time.Second)
		h.sync(b)
		h.m.Tick(h.ctx)
	}
	h.step()
	task := tid(id, 0, 1)
	a.Forget(task)
	code := 0
	a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code,
		At: start.Add(70 * time.Second)})
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a, b)
	h.step()
	h.clock.Advance(time.Second)
	if j := h.job(id); j.State != "completed" {
		t.Fatalf("job %s, want completed", j.State)
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
	if want := "115 end j1-work task=0 attempt=1 how=completed"; !strings.Contains(logText(live.Lines), want) {
		t.Errorf("live log:\n%s\nwant %q", logText(live.Lines), want)
	}
}

// TestLateExitGangReplay: as TestLateExitReplay, for a two-node attempt
// amended once both parts' exits are known (n2's part exited in time,
// n1's reported late): the export reads it as a completed attempt whose
// exit came late, and the replay makes the master's decisions.
func TestLateExitGangReplay(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: 30s\nlost_node_grace: 1m\npools:\n  - {name: default, policy: fifo}\n")))
	a, b, c := h.agent("n1", 2), h.agent("n2", 2), h.agent("n3", 2)
	t0 := h.clock.Now()
	id := h.submitAs("ana", jobSpec("gang", 4, `, "preemptible": false`))
	h.step()
	h.sync(a, b, c, a, b, c)
	start := h.clock.Now()
	task := tid(id, 0, 1)
	h.clock.Advance(20 * time.Second)
	h.sync(a, b, c)
	h.m.Tick(h.ctx)
	for i := 0; i < 19; i++ { // n1 silent: lost at 55 s; n2's part exits at 60 s; failed at 115 s
		h.clock.Advance(5 * time.Second)
		if h.clock.Now().Sub(start) == 60*time.Second {
			b.Exit(task, agent.OutcomeCompleted, 0)
		}
		h.sync(b, c)
		h.m.Tick(h.ctx)
	}
	h.step()
	if got := h.taskState(id, 0); got != "failed" {
		t.Fatalf("task %s after the grace, want failed", got)
	}
	a.Forget(task)
	code := 0
	a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code,
		At: start.Add(70 * time.Second)})
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.sync(a, b, c)
	h.step()
	h.clock.Advance(time.Second)
	if j := h.job(id); j.State != "completed" {
		t.Fatalf("job %s, want completed", j.State)
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
}
