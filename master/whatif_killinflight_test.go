package master

import (
	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/master/mastertest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHistoryScenarioKillInFlight: allot history check run while a kill
// is under way, its node silent (seen live on allot dev: the agent
// stopped, allot job kill, then the check). The export wrote no
// slow_kills for the open attempt, so the replay ended it at the kill,
// and the check reported a difference though nothing was wrong. Now the
// open kill takes longer than until the export, a second more at least,
// as an open checkpoint does (checkpointTime): the replay ends it, and
// starts the job waiting for its GPUs, after the log was read.
func TestHistoryScenarioKillInFlight(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 4)
	t0 := h.clock.Now().Truncate(time.Second).Add(time.Second)
	h.clock.Advance(t0.Sub(h.clock.Now()) + 8*time.Second)
	first := h.submit(jobSpec("first", 4, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(2 * time.Second)
	h.submit(jobSpec("next", 4, ""))
	h.step()
	h.clock.Advance(10 * time.Second)
	h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(first, 10)+"/kill", nil, nil)
	h.step()
	h.clock.Advance(4 * time.Second) // the agent is silent: no sync
	h.step()
	if st := h.taskState(first, 0); st != "killing" {
		t.Fatalf("first's task %s, want killing", st)
	}
	q := window(t0, h.clock.Now().Add(time.Second))
	sc, body := exportScenario(t, h, q)
	if !strings.Contains(body, "slow_kills") {
		t.Errorf("the export has no slow_kills for the kill under way:\n%s", body)
	}
	checkLiveLogBefore(t, h, q, sc, body)
}

// TestHistoryScenarioStartFailKillInFlight: a gang whose part on n2
// could not start has its part on n1 killed; n1 silent, that kill is
// still under way at the export. It is the failed start's kill, which the
// replay makes by start_fails, not a slow kill: a slow_kills entry for
// the attempt would make the scenario refuse it (an attempt whose start
// failed never ran).
func TestHistoryScenarioStartFailKillInFlight(t *testing.T) {
	h := newHarness(t)
	t0 := h.clock.Now()
	a, b := h.agent("n1", 4), h.agent("n2", 4)
	b.OnStart = func(agent.TaskSpec) *mastertest.Exit { return &mastertest.Exit{StartError: "no such file"} }
	id := h.submit(jobSpec("gang", 6, ""))
	h.step()
	h.sync(a, b)
	h.sync(b, b) // n2's failed start in; n1, silent, never gets the kill
	h.step()
	h.clock.Advance(5 * time.Second)
	h.step()
	if st := h.taskState(id, 0); st != "killing" {
		t.Fatalf("the gang's task %s, want killing", st)
	}
	sc, body := exportScenario(t, h, window(t0, h.clock.Now().Add(time.Second)))
	if len(sc.Jobs) != 1 || len(sc.Jobs[0].SlowKills) != 0 {
		t.Errorf("want the gang without slow_kills:\n%s", body)
	}
}
