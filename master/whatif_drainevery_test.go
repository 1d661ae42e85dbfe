package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/scenario"
)

// TestHistoryScenarioDrains: an admin's drains and resumes in the window
// are drain and resume events at their offsets, from the store's node
// history; draining a drained node again adds none; a node drained when
// the window starts is drained at 0, and one drained and resumed before
// it is not.
func TestHistoryScenarioDrains(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"n1", "n2", "n3"} {
		h.agent(n, 2)
	}
	drain := func(node, reason string) {
		t.Helper()
		if code := h.do("POST", "/api/v1/nodes/"+node+"/drain", api.NodeDrainRequest{Reason: reason}, nil); code != http.StatusOK {
			t.Fatalf("drain %s: %d", node, code)
		}
	}
	resume := func(node string) {
		t.Helper()
		if code := h.do("POST", "/api/v1/nodes/"+node+"/resume", nil, nil); code != http.StatusOK {
			t.Fatalf("resume %s: %d", node, code)
		}
	}
	drain("n3", "before the window")
	drain("n2", "before the window")
	h.clock.Advance(5 * time.Second)
	resume("n2")
	h.clock.Advance(5 * time.Second)
	t0 := h.clock.Now()
	h.clock.Advance(20 * time.Second)
	drain("n1", "PSU")
	h.clock.Advance(10 * time.Second)
	drain("n1", "PSU and fan")
	h.clock.Advance(30 * time.Second)
	resume("n1")
	resume("n1")
	h.clock.Advance(time.Minute)
	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	want := []scenario.Event{{At: 0, Kind: scenario.EventDrain, Node: "n3"}, {At: 20, Kind: scenario.EventDrain, Node: "n1"},
		{At: 60, Kind: scenario.EventResume, Node: "n1"}}
	checkNodeEvents(t, sc, body, want)
}

// TestHistoryScenarioCheckpointEvery: a job's checkpoint_every is
// exported where the job can be preempted; one submitted not preemptible
// and moved into the LOW class later (preemptible there) goes without
// it, as a scenario refuses it on a job that is not preemptible.
func TestHistoryScenarioCheckpointEvery(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
	h.agent("n1", 4)
	t0 := h.clock.Now()
	lowered := h.submit(`{"name": "lowered", "entrypoint": "python train.py", "resources": {"slots": 1, "checkpoint_every": 60, "priority": 45, "time_limit": 600}}`)
	h.submit(`{"name": "pre", "entrypoint": "python train.py", "resources": {"slots": 1, "checkpoint_every": 90, "preemptible": true, "time_limit": 600}}`)
	h.clock.Advance(10 * time.Second)
	if code := h.do("PATCH", "/api/v1/jobs/"+strconv.FormatInt(lowered, 10), `{"priority": 80}`, nil); code/100 != 2 {
		t.Fatalf("lower: %d", code)
	}
	h.clock.Advance(time.Minute)
	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	got := map[string]int64{}
	for _, j := range sc.Jobs {
		got[strings.SplitN(j.Name, "-", 2)[1]] = j.CheckpointEvery
	}
	if got["lowered"] != 0 || got["pre"] != 90 {
		t.Errorf("checkpoint_every %v, want lowered 0 and pre 90\n%s", got, body)
	}
}

// checkNodeEvents fails t unless sc's events are want's, by time, kind
// and node; body is the export, shown on a difference.
func checkNodeEvents(t *testing.T, sc *scenario.Scenario, body string, want []scenario.Event) {
	t.Helper()
	if len(sc.Events) != len(want) {
		t.Fatalf("events %+v, want %+v\n%s", sc.Events, want, body)
	}
	for i, e := range sc.Events {
		if e.At != want[i].At || e.Kind != want[i].Kind || e.Node != want[i].Node {
			t.Errorf("event %d: %+v, want %+v", i, e, want[i])
		}
	}
}
