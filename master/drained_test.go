package master

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestDrainedPoolWaits: a job of a pool whose only node is drained gets no
// start time on it, neither while the node's task runs (its slots are
// promised to no one) nor once it is empty; its pending message and
// explanation name the drain and say it waits for a resume, not that it
// can never run; a resume starts it.
func TestDrainedPoolWaits(t *testing.T) {
	for _, policy := range []string{"backfill", "fifo", "backfill, reservations: conservative"} {
		t.Run(policy, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: "+policy+"}\n")))
			n1 := h.agent("n1", 4)
			a := h.submit(jobSpec("a", 4, `, "time_limit": 3600`))
			h.step()
			h.sync(n1)
			if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "psu"}, nil); code != http.StatusOK {
				t.Fatalf("drain: %d", code)
			}
			d := h.submit(jobSpec("d", 4, `, "time_limit": 600`))
			h.step()
			check := func(phase, wantReason string) {
				t.Helper()
				j := h.job(d)
				if j.Pending == nil {
					t.Fatalf("%s: job d has no pending reason: %+v", phase, j)
				}
				pe := j.Pending
				if pe.EstimatedStart != nil {
					t.Errorf("%s: estimated start %v (%s) on a drained node", phase, pe.EstimatedStart, pe.EstimateBasis)
				}
				if pe.Reason != wantReason || wantReason != "no_capacity" && !strings.Contains(pe.Message, "node n1 is drained") {
					t.Errorf("%s: pending %s %q, want %s naming the drain", phase, pe.Reason, pe.Message, wantReason)
				}
				var x api.Explanation
				if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(d, 10)+"/explain", nil, &x); code != 200 {
					t.Fatalf("explain: %d", code)
				}
				cf := x.WouldStart
				if cf == nil || cf.Never != "" || strings.Contains(cf.Message, "can never run") ||
					!strings.Contains(cf.Message, "node n1 is drained; it waits for a resume") {
					t.Errorf("%s: counterfactual %+v does not name the drain", phase, cf)
				}
			}
			// FIFO holds no reservation: the job waits for capacity.
			first := map[string]string{"fifo": "no_capacity"}[policy]
			check("while a runs", cmp.Or(first, "reserved"))
			n1.Exit(tid(a, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(n1)
			h.step()
			check("once empty", "no_nodes")
			if code := h.do("POST", "/api/v1/nodes/n1/resume", nil, nil); code != http.StatusOK {
				t.Fatalf("resume: %d", code)
			}
			h.step()
			if j := h.job(d); j.State != "running" {
				t.Errorf("after the resume: job d %s, pending %+v", j.State, j.Pending)
			}
		})
	}
}
