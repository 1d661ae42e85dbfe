package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainLicenseShort: a job waiting for a license that running jobs
// hold is told which of them must end, whether it needs GPUs or not; free
// GPUs (or a node below its zero-slot limit) would not start it.
func TestExplainLicenseShort(t *testing.T) {
	for _, tt := range []struct {
		name  string
		slots int
	}{
		{"a GPU job", 1},
		{"a zero-slot job", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withFeatures(t)) // licenses: {matlab: 1}
			h.agent("n1", 8)
			holder := h.submit(jobSpec("holder", 1, `, "licenses": {"matlab": 1}`))
			waiter := h.submit(jobSpec("waiter", tt.slots, `, "licenses": {"matlab": 1}`))
			h.step()
			h.step() // the holder's task is an allocation of this pass's snapshot
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(waiter, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.Pending == nil || x.Pending.Reason != "license" || x.WouldStart == nil {
				t.Fatalf("pending %+v, counterfactual %+v; want a license wait with a counterfactual", x.Pending, x.WouldStart)
			}
			msg := x.WouldStart.Message
			for _, want := range []string{"license matlab", "0 of its 1 are free", "once job " + strconv.FormatInt(holder, 10) + " (holding 1) ends"} {
				if !strings.Contains(msg, want) {
					t.Errorf("counterfactual %q does not say %q", msg, want)
				}
			}
			// The same, structured, for the CLI's -o json and the dashboard.
			w := x.WouldStart.License
			if w == nil || w.Name != "matlab" || w.PerTask != 1 || w.Free != 0 || w.Total != 1 || len(w.Holders) != 1 ||
				w.Holders[0].ID != holder || w.Holders[0].Name != "holder" || w.Holders[0].Holding != 1 || w.Holders[0].Slots != 1 {
				t.Errorf("license wait %+v, want matlab 1 per task, 0 of 1 free, held by job %d (1 slot, holding 1)", w, holder)
			}
			for _, wrong := range []string{"fits now", "zero-slot"} {
				if strings.Contains(msg, wrong) || strings.Contains(x.Summary, wrong) {
					t.Errorf("explanation says %q: %q / %q", wrong, msg, x.Summary)
				}
			}
		})
	}
}
