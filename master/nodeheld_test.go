package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestNodeHeldEvents (trial 29e E4): a task held through its node's loss
// has it in its job's event log, with when the hold ends, and the node's
// return while its agent still runs the task too; a task not held (it is
// preemptible), one that ended while the node was away, and one whose
// grace ran out get no note of a return.
func TestNodeHeldEvents(t *testing.T) {
	const held = "node n1 lost: no contact for 32s; the task is held until %s (lost_node_grace 5m): its attempt ends then unless the node comes back"
	tests := []struct {
		name        string
		preemptible bool
		// back runs once the node is lost, with the agent and job.
		back func(h *harness, a *mastertest.Agent, id int64)
		want []string // the job's notes: cause, then reason
	}{
		{"back with the task running", false, func(h *harness, a *mastertest.Agent, id int64) {
			h.clock.Advance(time.Minute)
			register(h, a)
		}, []string{"node_lost " + held, "node_back node n1 back, 1m after it was lost: its agent still runs the task, which goes on"}},
		{"ended while the node was away", false, func(h *harness, a *mastertest.Agent, id int64) {
			h.clock.Advance(time.Minute)
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			register(h, a)
		}, []string{"node_lost " + held}},
		{"the grace ran out", false, func(h *harness, a *mastertest.Agent, id int64) {
			h.clock.Advance(6 * time.Minute)
			h.m.Tick(h.ctx)
			register(h, a)
		}, []string{"node_lost " + held}},
		{"preemptible: not held", true, func(h *harness, a *mastertest.Agent, id int64) {
			h.clock.Advance(time.Minute)
			register(h, a)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			id := h.submit(jobSpec("train", 1, fmt.Sprintf(`, "preemptible": %t`, tt.preemptible)))
			h.step()
			h.sync(a, a)
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.m.Tick(h.ctx)
			lost := h.m.nodes["n1"].lostAt
			tt.back(h, a, id)
			var evs api.JobEvents
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/events", id), nil, &evs); code != 200 {
				t.Fatalf("events: %d", code)
			}
			var got []string
			for _, e := range evs.Events {
				if store.Cause(e.Cause).Note() {
					if e.From != e.To || e.Task == nil || *e.Task != 0 || e.Attempt != 1 {
						t.Errorf("note %+v: want one of task 0's attempt 1 keeping its state", e)
					}
					got = append(got, e.Cause+" "+e.Reason)
				}
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "%s", msgTime(lost.Add(5*time.Minute))))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// register registers agent a again, and syncs it.
func register(h *harness, a *mastertest.Agent) {
	h.t.Helper()
	if _, err := a.Register(h.ctx); err != nil {
		h.t.Fatal(err)
	}
	h.sync(a)
}
