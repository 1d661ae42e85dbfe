package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestHistoryScenarioJoinedNode: a node whose agent first registered 50 s
// into the window is deleted at 0 and up at 50 in the export, so the
// job that waited for it starts on it at 50 in the replay, as live, not
// at 0 on a node that was not there (found trying allot history check
// with an agent joined late).
func TestHistoryScenarioJoinedNode(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	n1 := h.agent("n1", 2)
	t0 := h.clock.Now()
	a := h.submit(jobSpec("a", 2, ""))
	b := h.submit(jobSpec("b", 2, ""))
	h.step()
	h.sync(n1, n1)
	h.clock.Advance(50 * time.Second)
	n2 := h.agent("n2", 2)
	h.step()
	h.sync(n2, n2)
	h.clock.Advance(50 * time.Second)
	n1.Exit(tid(a, 0, 1), agent.OutcomeCompleted, 0)
	n2.Exit(tid(b, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(n1, n2)
	h.step()
	h.clock.Advance(time.Second)

	q := window(t0, h.clock.Now())
	sc, body := exportScenario(t, h, q)
	var joined []scenario.Event
	for _, e := range sc.Events {
		if e.Node == "n2" {
			joined = append(joined, e)
		}
	}
	if len(joined) != 2 || joined[0].Kind != scenario.EventNodeDelete || joined[0].At != 0 ||
		joined[1].Kind != scenario.EventNodeUp || joined[1].At != 50 {
		t.Fatalf("n2's events %+v, want node_delete at 0 and node_up at 50:\n%s", joined, body)
	}
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := decisionlog.Diff(logText(live.Lines), decisionlog.Format(replayed), 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
	if !strings.Contains(logText(live.Lines), "50 start j2-b task=0 attempt=1 nodes=n2:2") {
		t.Errorf("live log:\n%s\nwant b started on n2 at 50", logText(live.Lines))
	}
}
