package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestRunningJobView: a running job's view names its nodes and says
// where and since when it runs, in GET /jobs/{id} and in the list, not
// the stored "a task started" that every running job had (trial r R12);
// the store keeps that.
func TestRunningJobView(t *testing.T) {
	h := newHarness(t)
	h.opt.Config = mustConfig(t, features)
	h.start()
	a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: "p1", Pool: "prio", GPUs: 2}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	id := h.submit(`{"name": "run", "pool": "prio", "entrypoint": "e", "resources": {"slots": 2}}`)
	h.step()
	h.sync(a, a)
	one := h.job(id)
	var list []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
		t.Fatalf("list: %d", code)
	}
	if len(list) != 1 {
		t.Fatalf("list: %d jobs, want 1", len(list))
	}
	for name, j := range map[string]api.Job{"job": one, "list": list[0]} {
		t.Run(name, func(t *testing.T) {
			if j.State != "running" || j.StartedAt == nil {
				t.Fatalf("state %s, started %v; want running with a start", j.State, j.StartedAt)
			}
			if want := "on p1 since " + msgTime(*j.StartedAt); j.Reason != want {
				t.Errorf("reason %q, want %q", j.Reason, want)
			}
			if !slices.Equal(j.Nodes, []string{"p1"}) {
				t.Errorf("nodes %q, want [p1]", j.Nodes)
			}
		})
	}
	rec, err := h.st.Job(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Reason != startedReason {
		t.Errorf("stored reason %q, want %q", rec.Reason, startedReason)
	}
}

func TestRunningReason(t *testing.T) {
	at := time.Date(2026, 11, 28, 22, 1, 17, 0, time.UTC)
	cases := []struct {
		name   string
		j      jobRead
		reason string // "" for the stored one kept
	}{
		{"one task", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 1, holding: 1,
			nodes: []string{"n2"}, startedAt: at, placedAt: at}, "on n2 since 2026-11-28 22:01:17 UTC"},
		{"a gang on three nodes", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 1, holding: 1,
			nodes: []string{"n1", "n2", "n3"}, startedAt: at}, "on n[1-3] since 2026-11-28 22:01:17 UTC"},
		{"trials, some waiting", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 16, holding: 4,
			nodes: []string{"n1", "n2"}, startedAt: at}, "4 of 16 tasks on n[1-2] since 2026-11-28 22:01:17 UTC"},
		// B5: after a move or resize, since its start on the new
		// placement, and saying so; the run's start, not "first started"
		// (F8: the job's first attempt may have started earlier).
		{"moved", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 1, holding: 1,
			nodes: []string{"n1"}, startedAt: at, placedAt: at.Add(26 * time.Second), replaced: true},
			"on n1 since 2026-11-28 22:01:43 UTC (moved or resized there; this run started 22:01:17)"},
		{"moved the next day", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 1, holding: 1,
			nodes: []string{"n1"}, startedAt: at, placedAt: at.Add(24 * time.Hour), replaced: true},
			"on n1 since 2026-11-29 22:01:17 UTC (moved or resized there; this run started 2026-11-28 22:01:17 UTC)"},
		{"one of two tasks moved: the other's start", jobRead{rec: store.Job{State: store.JobRunning, Reason: startedReason}, tasks: 2, holding: 2,
			nodes: []string{"n1", "n2"}, startedAt: at, placedAt: at, replaced: true}, "on n[1-2] since 2026-11-28 22:01:17 UTC"},
		{"another reason kept", jobRead{rec: store.Job{State: store.JobRunning, Reason: "being killed"}, tasks: 1, holding: 1,
			nodes: []string{"n2"}, startedAt: at}, ""},
		{"queued", jobRead{rec: store.Job{State: store.JobQueued, Reason: "no task holds slots"}, tasks: 1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := api.Job{Reason: c.j.rec.Reason}
			showRunning(&out, &c.j)
			want := c.reason
			if want == "" {
				want = c.j.rec.Reason
			}
			if out.Reason != want {
				t.Errorf("reason %q, want %q", out.Reason, want)
			}
			if !slices.Equal(out.Nodes, c.j.nodes) {
				t.Errorf("nodes %q, want %q", out.Nodes, c.j.nodes)
			}
		})
	}
}

// TestRunningSentence: explain says where and since when a running job
// runs and, for one task with a time limit, by when the limit ends it
// (trial 2026-11-29a P3).
func TestRunningSentence(t *testing.T) {
	at := time.Date(2026, 11, 28, 22, 1, 17, 0, time.UTC)
	for _, tc := range []struct {
		name string
		view api.Job
		want string
	}{
		{"one task with a limit", api.Job{State: "running", Tasks: 1, Nodes: []string{"n2"}, StartedAt: &at, TimeLimitS: 720},
			"It runs on n2 since 2026-11-28 22:01:17 UTC; its time limit of 12m ends it by 2026-11-28 22:13:17 UTC at the latest."},
		{"no limit", api.Job{State: "running", Tasks: 1, Nodes: []string{"n2"}, StartedAt: &at},
			"It runs on n2 since 2026-11-28 22:01:17 UTC."},
		{"several tasks: no end", api.Job{State: "running", Tasks: 4, Nodes: []string{"n1", "n2", "n3"}, StartedAt: &at, TimeLimitS: 720},
			"It runs on n[1-3] since 2026-11-28 22:01:17 UTC."},
		{"queued", api.Job{State: "queued", Tasks: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runningSentence(tc.view); got != tc.want {
				t.Errorf("runningSentence = %q, want %q", got, tc.want)
			}
		})
	}
}
