package master

import (
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
