package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestFairnessWaitKinds: the audit leaves out of deprivation the part of
// a job's wait that the ledger says was of its project's own making or
// on nodes down (trial n F15), in proportion when the window holds part
// of the wait, and shows it in the row and its note; a wait for others'
// work still counts.
func TestFairnessWaitKinds(t *testing.T) {
	cfg := mustConfig(t, twoHalves)
	until := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	since := until.Add(-time.Hour)
	job := api.HistoryRecord{ID: 1, Project: "b", Pool: "default", State: "queued", Slots: 1, SubmittedAt: since, WaitS: 3600}
	tests := []struct {
		name      string
		split     waitSplit
		deprived  bool
		own, down int64
		note      string
	}{
		{"no reason known: counted", waitSplit{}, true, 0, 0, "got 0.0% of the cluster"},
		{"waits for others' work: counted", waitSplit{waitOther: 3600}, true, 0, 0, "got 0.0% of the cluster"},
		{"its own limit: not counted", waitSplit{waitOwn: 3600}, false, 3600, 0,
			"of the waits of its 1 job, 1h on its own limit, on demand past its quota or fair share, or on its max_concurrent: not counted as deprivation"},
		{"drained node: not counted", waitSplit{waitDown: 3600}, false, 0, 3600,
			"of the waits of its 1 job, 1h on drained, lost or departed nodes: not counted as deprivation"},
		{"mostly its own: the rest counts", waitSplit{waitOwn: 3000, waitOther: 600}, true, 3000, 0,
			"of the waits of its 1 job, 50m on its own limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := audit(cfg, 4, since, until, time.Time{}, nil, []api.HistoryRecord{job}, nil, map[int64]waitSplit{1: tt.split})
			b := f.Projects[1]
			if b.Deprived != tt.deprived || b.OwnWaitS != tt.own || b.DownWaitS != tt.down || b.MaxWaitS != 3600 || b.Waited != 1 {
				t.Errorf("row %+v, want deprived %v, own %d, down %d, the whole wait shown", b, tt.deprived, tt.own, tt.down)
			}
			if !strings.Contains(b.Note, tt.note) {
				t.Errorf("note %q does not say %q", b.Note, tt.note)
			}
		})
	}
}

// TestFairnessOwnLimitAPI: end to end, a job of project a waits an hour
// on a's own limit in a quota pool: the passes credit the wait to the
// limit and the audit does not flag a; the same wait behind b's job in
// a FIFO pool flags it.
func TestFairnessOwnLimitAPI(t *testing.T) {
	const ownLimit = "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 1, limit: 1}\n  - {name: b, quota: 1}\n"
	tests := []struct {
		name, cfg string
		step      bool // a pass runs at the hour's end
		deprived  bool
		note      string
	}{
		{"its own limit", ownLimit, true, false, "1h on its own limit"},
		{"its own limit, no pass since: the view's reason", ownLimit, false, false, "1h on its own limit"},
		{"others' work", twoHalves, true, true, "got "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.cfg)))
			n1 := h.agent("n1", 4)
			if tt.deprived {
				h.submit(`{"name": "big", "project": "b", "entrypoint": "x", "resources": {"slots": 4}}`)
			} else {
				h.submit(`{"name": "one", "entrypoint": "x", "resources": {"slots": 1}}`)
			}
			h.step()
			h.sync(n1, n1)
			h.submit(`{"name": "waits", "entrypoint": "x", "resources": {"slots": 1}}`)
			h.step()
			h.clock.Advance(time.Hour)
			if tt.step {
				h.step()
			}
			var f api.Fairness
			if code := h.do("GET", "/api/v1/fairness?since=2h", nil, &f); code != 200 {
				t.Fatalf("status %d", code)
			}
			for _, r := range f.Projects {
				if r.Project == "a" && (r.Deprived != tt.deprived || !strings.Contains(r.Note, tt.note)) {
					t.Errorf("row %+v: want deprived %v, a note saying %q", r, tt.deprived, tt.note)
				}
			}
		})
	}
}
