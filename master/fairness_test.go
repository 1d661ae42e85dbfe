package master

import (
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestFairnessAudit: project a is entitled to half of a 4-GPU cluster
// (two thirds of lab's three quarters) but got nothing for an hour while
// its job waited behind b's, which took the whole cluster: a and its
// parent lab are flagged, b is not; c, a's sibling, neither used nor
// wanted anything and is not flagged.
func TestFairnessAudit(t *testing.T) {
	cfg := mustConfig(t, `
pools:
  - {name: default, policy: fifo}
default_project: b
projects:
  - {name: lab, shares: 3}
  - {name: a, parent: lab, shares: 2}
  - {name: c, parent: lab, shares: 1}
  - {name: b, shares: 1}
`)
	h := newHarness(t, withConfig(cfg))
	ag := h.agent("n1", 4)
	b := h.submit(`{"name": "big", "project": "b", "entrypoint": "x", "resources": {"slots": 4}}`)
	h.step()
	h.sync(ag, ag)
	h.submit(`{"name": "waits", "project": "a", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.clock.Advance(time.Hour)
	ag.Exit(tid(b, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(ag)

	var f api.Fairness
	if code := h.do("GET", "/api/v1/fairness?since=1h", nil, &f); code != 200 {
		t.Fatalf("status %d", code)
	}
	if f.CapacityGPUHours != 4 || len(f.Projects) != 4 {
		t.Fatalf("fairness %+v, want 4 GPU-hours of capacity and 4 projects", f)
	}
	rows := map[string]api.FairnessRow{}
	for _, r := range f.Projects {
		rows[r.Project] = r
	}
	tests := []struct {
		project       string
		entitled, got float64
		waited        int
		deprived      bool
	}{
		{"lab", 0.75, 0, 1, true},
		{"a", 0.5, 0, 1, true},
		{"c", 0.25, 0, 0, false},
		{"b", 0.25, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.project, func(t *testing.T) {
			r := rows[tt.project]
			if math.Abs(r.Entitled-tt.entitled) > 1e-9 || math.Abs(r.Got-tt.got) > 1e-9 || r.Waited != tt.waited || r.Deprived != tt.deprived {
				t.Fatalf("row %+v, want entitled %v got %v waited %d deprived %v", r, tt.entitled, tt.got, tt.waited, tt.deprived)
			}
			if tt.deprived && (r.MeanWaitS != 3600 || r.Note == "") {
				t.Errorf("deprived row %+v, want a mean wait of 1h and a note", r)
			}
		})
	}
}
