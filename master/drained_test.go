package master

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
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
				if pe.Reason != wantReason || !strings.Contains(pe.Message, "node n1 is drained") {
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
			// FIFO holds no reservation: the job waits for the node, as
			// once it is empty.
			first := map[string]string{"fifo": "no_nodes"}[policy]
			check("while a runs", cmp.Or(first, sched.CodeNoReservation))
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

// TestDrainedTooBig: a job kept with allow_infeasible that the pool could
// not hold even with its drained node resumed is told it can never run,
// with the most the pool's nodes hold, not to wait for a resume; one that
// fits the node resumed waits for the resume.
func TestDrainedTooBig(t *testing.T) {
	for _, c := range []struct {
		name     string
		slots    int
		never    bool
		reason   string // in the pending message
		explains string // in the counterfactual
	}{
		{"too big resumed", 8, true,
			"no node in the pool can hold a task of 8 slots with its constraints; the most its nodes hold together is 4",
			"can never run: a task needs 8 slots, but the slots of pool default add up to 4"},
		{"fits resumed", 4, false, "node n1 is drained; it waits for a resume", "node n1 is drained; it waits for a resume"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			n1 := h.agent("n1", 4)
			// a holds half of n1: the drained node counts 2 slots now, 4
			// resumed.
			h.submit(jobSpec("a", 2, `, "time_limit": 3600`))
			h.step()
			h.sync(n1)
			if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "psu"}, nil); code != http.StatusOK {
				t.Fatalf("drain: %d", code)
			}
			var reply api.SubmitReply
			if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("big", c.slots, ""), &reply); code != 201 {
				t.Fatalf("submit: %d", code)
			}
			h.step()
			j := h.job(reply.ID)
			if j.Pending == nil || j.Pending.Reason != "no_nodes" || !strings.Contains(j.Pending.Message, c.reason) {
				t.Errorf("pending %+v, want no_nodes saying %q", j.Pending, c.reason)
			}
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(reply.ID, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if cf := x.WouldStart; cf == nil || (cf.Never != "") != c.never || !strings.Contains(cf.Message, c.explains) {
				t.Errorf("counterfactual %+v, want never %v saying %q", cf, c.never, c.explains)
			}
		})
	}
}
