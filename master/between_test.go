package master

import (
	"net/http"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
)

// TestNodeEventsWaitForSettling: a node event that comes while a pass is
// held between its Schedule and its taking mu again waits for the
// settling to end (betweenSettlings) and is made after it; other
// handlers do not wait (TestHandlersDoNotWaitForSchedule). Each case
// fails if its handler changes the node mid-settling. (The tick's
// losses wait too, but the tick runs its own pass after them, which
// would wait for the held one.)
func TestNodeEventsWaitForSettling(t *testing.T) {
	tests := []struct {
		name string
		// before readies n2 for the event; event makes it.
		before, event func(t *testing.T, h *harness, n2 *mastertest.Agent)
	}{
		{name: "drain", event: func(t *testing.T, h *harness, _ *mastertest.Agent) {
			if code := h.do("POST", "/api/v1/nodes/n2/drain", api.NodeDrainRequest{Reason: "x"}, nil); code != http.StatusOK {
				t.Errorf("drain: %d", code)
			}
		}},
		{name: "resume", before: func(t *testing.T, h *harness, _ *mastertest.Agent) {
			if code := h.do("POST", "/api/v1/nodes/n2/drain", api.NodeDrainRequest{Reason: "x"}, nil); code != http.StatusOK {
				t.Errorf("drain: %d", code)
			}
		}, event: func(t *testing.T, h *harness, _ *mastertest.Agent) {
			if code := h.do("POST", "/api/v1/nodes/n2/resume", nil, nil); code != http.StatusOK {
				t.Errorf("resume: %d", code)
			}
		}},
		{name: "delete", event: func(t *testing.T, h *harness, _ *mastertest.Agent) {
			if code := h.do("DELETE", "/api/v1/nodes/n2", nil, nil); code != http.StatusOK {
				t.Errorf("delete: %d", code)
			}
		}},
		{name: "registration", event: func(t *testing.T, h *harness, n2 *mastertest.Agent) {
			if _, err := n2.Register(h.ctx); err != nil {
				t.Error(err)
			}
		}},
		{name: "goodbye", event: func(t *testing.T, h *harness, n2 *mastertest.Agent) {
			n2.Leave()
			if _, err := n2.Sync(h.ctx, 0); err != nil {
				t.Error(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.agent("n1", 4)
			n2 := h.agent("n2", 2)
			if tt.before != nil {
				tt.before(t, h, n2)
			}
			h.submit(jobSpec("job", 4, "")) // on n1: n2 stays idle
			var made chan struct{}
			onceUnlocked(t, func(*sched.Plan) {
				made = inAnother(t, func() { tt.event(t, h, n2) })
				select {
				case <-made:
					t.Error("the node event was made while the core planned")
				default:
				}
			})
			h.step()
			<-made
		})
	}
}
