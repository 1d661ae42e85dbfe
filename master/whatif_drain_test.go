package master

import (
	"net/http"
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
	if len(sc.Events) != len(want) {
		t.Fatalf("events %+v, want %+v\n%s", sc.Events, want, body)
	}
	for i, e := range sc.Events {
		if e.At != want[i].At || e.Kind != want[i].Kind || e.Node != want[i].Node {
			t.Errorf("event %d: %+v, want %+v", i, e, want[i])
		}
	}
}
