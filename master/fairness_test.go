package master

import (
	"math"
	"slices"
	"strings"
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

// twoHalves is a FIFO cluster whose projects a and b are entitled to
// half each.
const twoHalves = `
pools:
  - {name: default, policy: fifo}
default_project: a
projects:
  - {name: a, shares: 1}
  - {name: b, shares: 1}
`

// TestFairnessYoungCluster: on a cluster half an hour old, the 7-day
// window is measured from the agent's registration, so that what the
// projects got is their share of the half hour; b's 7-second wait for its
// turn is negligible and b is not flagged, although it got less than its
// half (a took the whole cluster first).
func TestFairnessYoungCluster(t *testing.T) {
	cfg := mustConfig(t, twoHalves)
	h := newHarness(t, withConfig(cfg))
	born := h.clock.Now()
	ag := h.agent("n1", 4)
	big := h.submit(`{"name": "big", "project": "a", "entrypoint": "x", "resources": {"slots": 4}}`)
	h.step()
	h.sync(ag, ag)
	h.clock.Advance(20 * time.Minute)
	h.submit(`{"name": "small", "project": "b", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.clock.Advance(7 * time.Second)
	ag.Exit(tid(big, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(ag)
	h.step()
	h.sync(ag, ag)
	h.clock.Advance(10*time.Minute - 7*time.Second)

	var f api.Fairness
	if code := h.do("GET", "/api/v1/fairness", nil, &f); code != 200 {
		t.Fatalf("status %d", code)
	}
	if f.MeasuredSince == nil || !f.MeasuredSince.Equal(born) || math.Abs(f.CapacityGPUHours-2) > 1e-9 {
		t.Fatalf("fairness %+v, want it measured since %v with 2 GPU-hours of capacity", f, born)
	}
	rows := map[string]api.FairnessRow{}
	for _, r := range f.Projects {
		rows[r.Project] = r
	}
	// a used 4 GPUs for 20m7s, b one GPU for 9m53s, of 2 GPU-hours.
	tests := []struct {
		project  string
		got      float64
		waited   int
		deprived bool
	}{
		{"a", (4 * (20*60 + 7.0)) / 7200, 0, false},
		{"b", (10*60 - 7.0) / 7200, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.project, func(t *testing.T) {
			r := rows[tt.project]
			if math.Abs(r.Got-tt.got) > 1e-6 || r.Waited != tt.waited || r.Deprived != tt.deprived {
				t.Fatalf("row %+v, want got %v waited %d deprived %v", r, tt.got, tt.waited, tt.deprived)
			}
		})
	}
}

// TestFairnessWindow: the capacity counts from the later of the window's
// start and the cluster's; a wait is flagged only from 1% of the
// project's entitled GPU-time, and only once one lasted 10 minutes.
func TestFairnessWindow(t *testing.T) {
	cfg := mustConfig(t, twoHalves)
	until := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	since := until.Add(-7 * 24 * time.Hour)
	young := until.Add(-2 * time.Hour)
	tests := []struct {
		name     string
		born     time.Time
		ago      time.Duration // b's 2-GPU job was submitted this long before until
		wait     int64         // and waited this many seconds; b used nothing
		measured time.Time     // zero: not shortened
		capacity float64       // GPU-hours of 10 GPUs
		deprived bool
	}{
		// 1% of b's half of 1680 GPU-hours is 8.4 GPU-hours: 2 GPUs for 4.2 hours.
		{name: "old cluster", born: since.Add(-time.Hour), ago: 24 * time.Hour, wait: 86400, capacity: 1680, deprived: true},
		{name: "no records", ago: 24 * time.Hour, wait: 86400, capacity: 1680, deprived: true},
		{name: "born at since", born: since, ago: 24 * time.Hour, wait: 86400, capacity: 1680, deprived: true},
		{name: "7s on a week", born: since, ago: 24 * time.Hour, wait: 7, capacity: 1680},
		{name: "4h on a week", born: since, ago: 24 * time.Hour, wait: 4 * 3600, capacity: 1680},
		{name: "young cluster", born: young, ago: time.Hour, wait: 3600, measured: young, capacity: 20, deprived: true},
		// 1% of b's half of 20 GPU-hours is 360 GPU-seconds: 2 GPUs for 3 minutes.
		{name: "negligible wait", born: young, ago: time.Hour, wait: 179, measured: young, capacity: 20},
		// Past 1%, but no wait reached 10 minutes: a queue, not deprivation.
		{name: "over 1% but short", born: young, ago: time.Hour, wait: 599, measured: young, capacity: 20},
		{name: "at both thresholds", born: young, ago: time.Hour, wait: 600, measured: young, capacity: 20, deprived: true},
		// The trial's case: a minute-old cluster, a 39-second wait.
		{name: "seconds on a cluster a minute old", born: until.Add(-time.Minute), ago: 40 * time.Second, wait: 39,
			measured: until.Add(-time.Minute), capacity: 10.0 / 60},
		{name: "born after until", born: until.Add(time.Hour), measured: until, capacity: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs := []api.HistoryRecord{{ID: 1, Project: "b", Slots: 2, SubmittedAt: until.Add(-tt.ago), WaitS: tt.wait}}
			f := audit(cfg, 10, since, until, tt.born, nil, jobs, nil, nil)
			switch {
			case tt.measured.IsZero() && f.MeasuredSince != nil:
				t.Errorf("measured since %v, want the whole window", *f.MeasuredSince)
			case !tt.measured.IsZero() && (f.MeasuredSince == nil || !f.MeasuredSince.Equal(tt.measured)):
				t.Errorf("measured since %v, want %v", f.MeasuredSince, tt.measured)
			}
			if math.Abs(f.CapacityGPUHours-tt.capacity) > 1e-9 {
				t.Errorf("capacity %v GPU-hours, want %v", f.CapacityGPUHours, tt.capacity)
			}
			if b := f.Projects[1]; b.Project != "b" || b.Deprived != tt.deprived {
				t.Errorf("row %+v, want b deprived %v", b, tt.deprived)
			}
		})
	}
}

// TestFairnessNoNode: a job still waiting in a pool with no node up
// waits for a node, which no share of the cluster could have served: its
// wait is shown but does not flag its project deprived, and the note
// says where it waits; the same wait in a pool with a node, or by a job
// that started there, does.
func TestFairnessNoNode(t *testing.T) {
	cfg := mustConfig(t, twoHalves)
	until := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	since := until.Add(-time.Hour)
	started := until.Add(-time.Minute)
	waiting := func(pool string, start *time.Time) api.HistoryRecord {
		state := "queued"
		if start != nil {
			state = "running"
		}
		return api.HistoryRecord{ID: 1, Project: "b", Pool: pool, State: state, Slots: 1, SubmittedAt: since, StartedAt: start,
			WaitS: 3600}
	}
	empty := map[string]bool{"batch": true}
	tests := []struct {
		name     string
		jobs     []api.HistoryRecord
		noNode   map[string]bool
		deprived bool
		stranded int
		note     string
	}{
		{"waits in a pool with no node", []api.HistoryRecord{waiting("batch", nil)}, empty, false, 1,
			"1 job waits in pool batch, which has no node up: no share of the cluster could serve it, so its wait is not counted as deprivation"},
		{"waits in a pool with a node", []api.HistoryRecord{waiting("default", nil)}, empty, true, 0,
			"got 0.0% of the cluster against an entitlement of 50.0% while 1 job waited (mean 1h, longest 1h)"},
		{"started in the pool since", []api.HistoryRecord{waiting("batch", &started)}, empty, true, 0, ""},
		{"two pools without nodes", []api.HistoryRecord{waiting("batch", nil), waiting("t4", nil)},
			map[string]bool{"batch": true, "t4": true}, false, 2,
			"2 jobs wait in pools batch and t4, which have no node up: no share of the cluster could serve them, so their waits are not counted as deprivation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := audit(cfg, 4, since, until, time.Time{}, nil, tt.jobs, tt.noNode, nil)
			b := f.Projects[1]
			if b.Deprived != tt.deprived || b.NoNode != tt.stranded || b.Waited != len(tt.jobs) || b.MaxWaitS != 3600 {
				t.Errorf("row %+v, want deprived %v, %d waiting with no node, the waits shown", b, tt.deprived, tt.stranded)
			}
			if tt.note != "" && b.Note != tt.note {
				t.Errorf("note %q, want %q", b.Note, tt.note)
			}
		})
	}
}

// TestFairnessNoNodeAPI: the audit takes the pools with no node up from
// the cluster: a job waiting an hour in a pool whose nodes are all in
// another is noted, not flagged.
func TestFairnessNoNodeAPI(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(twoHalves, "policy: fifo}\n", "policy: fifo}\n  - {name: batch, policy: fifo}\n", 1))
	h := newHarness(t, withConfig(cfg))
	h.agent("n1", 4)
	h.submit(`{"name": "stuck", "project": "b", "pool": "batch", "entrypoint": "x", "resources": {"slots": 1}}`)
	h.step()
	h.clock.Advance(time.Hour)
	var f api.Fairness
	if code := h.do("GET", "/api/v1/fairness?since=1h", nil, &f); code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, r := range f.Projects {
		if r.Project == "b" && (r.Deprived || r.NoNode != 1 || !slices.Equal(r.NoNodePools, []string{"batch"})) {
			t.Errorf("row %+v, want b not deprived, its job noted waiting in batch, which has no node", r)
		}
	}
}
