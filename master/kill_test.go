package master

import (
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestKillReplySaysAlreadyEnded: a kill answers the job, and says whether
// it had already ended, so that a client can tell a kill that did
// something from a repeated one; both are 200, since killing an ended job
// is not an error.
func TestKillReplySaysAlreadyEnded(t *testing.T) {
	tests := []struct {
		name string
		// end brings job id to its state before the kill under test.
		end       func(h *harness, a *mastertest.Agent, id int64)
		wantState string
		wantEnded bool
	}{
		{"running", func(h *harness, a *mastertest.Agent, id int64) {}, "killed", false},
		{"killed before", func(h *harness, a *mastertest.Agent, id int64) {
			if code := h.do("POST", "/api/v1/jobs/1/kill", nil, nil); code != 200 {
				t.Fatalf("first kill: %d", code)
			}
		}, "killed", true},
		{"completed", func(h *harness, a *mastertest.Agent, id int64) {
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
		}, "completed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			id := h.submit(jobSpec("one", 1, ""))
			h.step()
			h.sync(a, a)
			tt.end(h, a, id)
			var r api.KillReply
			if code := h.do("POST", "/api/v1/jobs/1/kill", nil, &r); code != 200 {
				t.Fatalf("kill: %d", code)
			}
			if r.ID != id || r.State != tt.wantState || r.AlreadyEnded != tt.wantEnded {
				t.Errorf("kill replied job %d %s, already_ended %v; want %d %s, %v", r.ID, r.State, r.AlreadyEnded, id, tt.wantState, tt.wantEnded)
			}
		})
	}
}
