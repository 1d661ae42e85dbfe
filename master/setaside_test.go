package master

import (
	"net/http"
	"strings"
	"testing"
)

// TestRefusedJobSetAside: a job whose entry the core refuses (here a
// weight that is not positive, which no submission lets through) is set
// aside with the core's error as its reason, and the other jobs are
// scheduled; before, the refused snapshot planned nothing in any pool.
// A change of the configuration tries it again.
func TestRefusedJobSetAside(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	bad := h.submit(jobSpec("bad", 1, ""))
	good := h.submit(jobSpec("good", 1, ""))
	h.m.lock()
	j := h.m.jobs[bad]
	j.rec.Weight = 0
	h.m.pub.markJob(j)
	j.entryGen = 0
	h.m.planner.roster.touched = append(h.m.planner.roster.touched, j)
	h.m.unlock()
	h.step()
	h.sync(a)
	if ps := h.m.passes.status(); ps.Failing {
		t.Fatalf("passes fail: %s", ps.Error)
	}
	cases := []struct {
		name, want, reason string
		id                 int64
	}{
		{"the refused job waits, saying why", "queued", "refused", bad},
		{"the others are scheduled", "running", "", good},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := h.job(tc.id)
			if v.State != tc.want {
				t.Fatalf("job %d %s, want %s", tc.id, v.State, tc.want)
			}
			if tc.reason == "" {
				return
			}
			if v.Pending == nil || v.Pending.Reason != tc.reason || !strings.Contains(v.Pending.Message, "weight must be positive") {
				t.Errorf("job %d pending %+v, want %s naming the core's error", tc.id, v.Pending, tc.reason)
			}
		})
	}
	t.Run("a change of the configuration tries it again", func(t *testing.T) {
		h.m.lock()
		h.m.cfgGen++
		refusedAt := j.refusedGen
		h.m.unlock()
		h.step()
		h.m.lock()
		again := j.refusedGen != refusedAt && j.refused != ""
		h.m.unlock()
		if !again {
			t.Errorf("job %d not tried again after the configuration changed", bad)
		}
		if code, body, _ := h.raw("GET", "/healthz", ""); code != http.StatusOK {
			t.Errorf("/healthz %d %q, want 200", code, body)
		}
	})
}
