package master

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestUsageAndHistory: GPU-hours per group over a window, from the stored
// records of ended attempts and the open part of running ones, clipped to
// the window; and the sacct-like history of the same jobs.
func TestUsageAndHistory(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	done := h.submit(jobSpec("done", 2, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Hour)
	a.Exit(tid(done, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	running := h.submit(jobSpec("running", 1, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	h.as("ana") // a user with no usage; one that does not exist is a 400 (TestUnknownUserFilter)

	tests := []struct {
		name, query string
		rows        int
		total       float64
	}{
		{"both jobs, by project", "?since=2h", 1, 2*1 + 0.5},
		{"by user", "?since=2h&by=user", 1, 2.5},
		{"every group", "?since=2h&by=all", 1, 2.5},
		{"the last 45 minutes", "?since=45m", 1, 2*0.25 + 0.5},
		{"a window before anything ran", "?since=5h&until=4h", 0, 0},
		{"one user's", "?since=2h&by=user&user=root", 1, 2.5},
		{"another user's", "?since=2h&user=ana", 0, 0},
		{"one project's", "?since=2h&project=default", 1, 2.5},
		{"another project's", "?since=2h&project=nlp&user=root", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u api.Usage
			if code := h.do("GET", "/api/v1/usage"+tt.query, nil, &u); code != 200 {
				t.Fatalf("status %d", code)
			}
			if len(u.Rows) != tt.rows || math.Abs(u.TotalGPUHours-tt.total) > 1e-6 {
				t.Fatalf("usage %+v, want %d rows totalling %v GPU-hours", u, tt.rows, tt.total)
			}
			if tt.rows > 0 && (u.Rows[0].Jobs != 2 || u.Rows[0].Attempts != 2) {
				t.Errorf("row %+v, want 2 jobs and 2 attempts", u.Rows[0])
			}
		})
	}
	for _, bad := range []string{"?by=nosuch", "?since=yesterday", "?since=1h&until=2h", "?color=red"} {
		if code := h.do("GET", "/api/v1/usage"+bad, nil, nil); code != 400 {
			t.Errorf("usage%s: status %d, want 400", bad, code)
		}
	}

	_, metrics, _ := h.raw("GET", "/metrics", "")
	if want := `allot_gpu_seconds_total{pool="default",project="default",user="root"} 7200`; !strings.Contains(metrics, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "allot_gpu_seconds"))
	}

	var hist []api.HistoryRecord
	if code := h.do("GET", "/api/v1/history?since=2h", nil, &hist); code != 200 || len(hist) != 2 {
		t.Fatalf("history: %d %+v, want the 2 jobs", code, hist)
	}
	d, r := hist[0], hist[1]
	if d.ID != done || d.State != "completed" || d.ElapsedS != 3600 || math.Abs(d.GPUHours-2) > 1e-6 ||
		d.ExitCode == nil || *d.ExitCode != 0 || d.Attempts != 1 || d.EndedAt == nil {
		t.Errorf("history of the completed job: %+v", d)
	}
	if r.ID != running || r.State != "running" || r.ElapsedS != 1800 || math.Abs(r.GPUHours-0.5) > 1e-6 || r.EndedAt != nil {
		t.Errorf("history of the running job: %+v", r)
	}
	if code := h.do("GET", "/api/v1/history?state=done", nil, nil); code != 400 {
		t.Errorf("history with a bad state: %d, want 400", code)
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestUsageHiddenNoted: a member's usage leaves out the projects where
// it has no role, and says how many and their GPU-hours together, not
// whose (trial 2026-11-29a A3: the table read as the whole cluster's);
// an admin's has nothing hidden.
func TestUsageHiddenNoted(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "default_project: vision\nprojects:\n  - {name: vision}\n  - {name: nlp}\n")))
	a := h.agent("n1", 4)
	id := h.submit(`{"name": "nlp-job", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`)
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Hour)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	if code := h.do("POST", "/api/v1/users", api.NewUser{Name: "ann", Roles: map[string]string{"vision": "member"}}, nil); code != 201 {
		t.Fatalf("create user: %d", code)
	}
	var ct api.CreatedToken
	if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: "user", User: "ann"}, &ct); code != 201 {
		t.Fatalf("create token: %d", code)
	}
	for _, tc := range []struct {
		name   string
		token  string
		rows   int
		hidden int
		hours  float64
	}{
		{"a member of another project", ct.Secret, 0, 1, 2},
		{"the admin", h.admin, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u api.Usage
			if code := h.doAs(tc.token, "GET", "/api/v1/usage?since=2h", nil, &u); code != 200 {
				t.Fatalf("usage: %d", code)
			}
			if len(u.Rows) != tc.rows || u.HiddenProjects != tc.hidden || math.Abs(u.HiddenGPUHours-tc.hours) > 1e-6 {
				t.Fatalf("usage %+v, want %d rows, %d projects hidden with %v GPU-hours", u, tc.rows, tc.hidden, tc.hours)
			}
		})
	}
}
