package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestZeroSlotWaitReasons: a zero-slot job waiting for a node below the
// pool's zero_slot_limit is told the limit and the job that holds it, in
// its reason and in explain's counterfactual (the job that must end, on
// which node); once its node is drained and the holder has ended, it
// waits for the resume (no_nodes, naming the node), as a slot job does,
// not with "every node already runs its limit of zero-slot tasks" with
// none running.
func TestZeroSlotWaitReasons(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo, zero_slot_limit: 1}\n")))
	a := h.agent("n1", 2)
	nb := h.submit(jobSpec("nb", 0, ""))
	h.step()
	h.sync(a)
	h.step()
	nb2 := h.submit(jobSpec("nb2", 0, ""))
	h.step()
	explain := func() api.Explanation {
		t.Helper()
		var x api.Explanation
		must200(t, h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(nb2, 10)+"/explain", nil, &x), "explain")
		if x.Pending == nil || x.WouldStart == nil {
			t.Fatalf("explanation %+v: want a reason and a counterfactual", x)
		}
		return x
	}
	holder := "job " + strconv.FormatInt(nb, 10)
	t.Run("at the limit: the limit and its holder", func(t *testing.T) {
		x := explain()
		if x.Pending.Reason != "zero_slot_full" || !strings.Contains(x.Pending.Message, "(1 per node), held by "+holder) {
			t.Errorf("pending %+v, want zero_slot_full naming the limit and %s", x.Pending, holder)
		}
		cf := x.WouldStart
		if len(cf.MustEnd) != 1 || cf.MustEnd[0].ID != nb || len(cf.Nodes) != 1 || cf.Nodes[0] != "n1" ||
			!strings.Contains(cf.Message, "limit of 1 zero-slot task") || !strings.Contains(cf.Message, holder+" ends (it has no time limit)") {
			t.Errorf("counterfactual %+v, want %s to end on n1, the limit 1", cf, holder)
		}
	})
	if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "maintenance"}, nil); code != http.StatusOK {
		t.Fatalf("drain: %d", code)
	}
	a.Exit(tid(nb, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	t.Run("drained, none running: waits for the resume", func(t *testing.T) {
		x := explain()
		if x.Pending.Reason != "no_nodes" || !strings.Contains(x.Pending.Message, "node n1 is drained; it waits for a resume") {
			t.Errorf("pending %+v, want no_nodes naming the drained n1", x.Pending)
		}
		if !strings.Contains(x.WouldStart.Message, "drained") {
			t.Errorf("counterfactual %q, want it to wait for the resume", x.WouldStart.Message)
		}
	})
}
