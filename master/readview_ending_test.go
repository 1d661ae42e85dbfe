package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestEndingReason: a job killed while its tasks still stop is shown
// ending, with where they stop, for how long, and who killed it; so is a
// running job whose every task not ended is being killed, with why; a
// job whose tasks have all ended, or one with a task still running or
// waiting, is not. A task killed while being preempted is waited for
// until the preemption's deadline, where that comes first.
func TestEndingReason(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	killed := store.Job{ID: 1, State: store.JobKilled, EndedAt: at, Reason: "killed through the API by alice"}
	tests := []struct {
		name       string
		job        jobRead
		grace      time.Duration
		wantEnding bool
		want       string
	}{
		{"one task on one node", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"dev-3"},
			open: []taskPart{{task: 0, node: "dev-3", killing: true}}}, 0, true,
			"being killed: 1 task still stopping on dev-3, its agent has not confirmed the end (for 5s); killed through the API by alice"},
		{"a gang on two nodes", jobRead{rec: killed, tasks: 3, active: 2, nodes: []string{"a", "b", "c"},
			open: []taskPart{{task: 1, node: "c", killing: true}, {task: 2, node: "a", killing: true}}}, 0, true,
			"being killed: 2 tasks still stopping on a, c, their agents have not confirmed the end (for 5s); killed through the API by alice"},
		{"parts exited, task not yet ended", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"}}, 0, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s); killed through the API by alice"},
		{"within the kill grace", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"}}, 30 * time.Second, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s, of a kill_grace of 30s); killed through the API by alice"},
		{"past the kill grace", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"}}, 3 * time.Second, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s, past the kill_grace of 3s); killed through the API by alice"},
		// Killed while being preempted: its agent kills it at the
		// preemption's deadline (killBy), before the kill grace ends.
		{"within a preemption's deadline", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"},
			killedAt: at, killBy: at.Add(7 * time.Second)}, 30 * time.Second, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s, killed at 12:00:07 UTC if not stopped by then, its preemption's deadline); killed through the API by alice"},
		{"past a preemption's deadline", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"},
			killedAt: at, killBy: at.Add(2 * time.Second)}, 30 * time.Second, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s, past its preemption's deadline of 12:00:02 UTC); killed through the API by alice"},
		{"a kill grace that ends first", jobRead{rec: killed, tasks: 1, active: 1, nodes: []string{"b"},
			killedAt: at, killBy: at.Add(3 * time.Second)}, 3 * time.Second, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s, past the kill_grace of 3s); killed through the API by alice"},
		{"every task ended", jobRead{rec: killed, tasks: 1}, 0, false, killed.Reason},
		{"running, its task killed by its time limit", jobRead{rec: store.Job{ID: 2, State: store.JobRunning, Reason: "a task started"},
			tasks: 1, active: 1, stopping: 1, killedAt: at, killWhy: "time limit of 1h reached",
			nodes: []string{"b"}, open: []taskPart{{node: "b", killing: true}}}, 0, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s); time limit of 1h reached"},
		{"running, one task killed, one ended", jobRead{rec: store.Job{ID: 2, State: store.JobRunning, Reason: "a task started"},
			tasks: 2, active: 1, stopping: 1, ended: 1, killedAt: at, killWhy: "the part on node a failed with exit code 3",
			nodes: []string{"b"}, open: []taskPart{{node: "b", killing: true}}}, 0, true,
			"being killed: 1 task still stopping on b, its agent has not confirmed the end (for 5s); the part on node a failed with exit code 3"},
		{"running, one task killed, one running", jobRead{rec: store.Job{ID: 2, State: store.JobRunning, Reason: "a task started"},
			tasks: 2, active: 2, stopping: 1, killedAt: at, killWhy: "time limit of 1h reached",
			nodes: []string{"a", "b"}, open: []taskPart{{task: 0, node: "a"}, {task: 1, node: "b", killing: true}}}, 0, false, "a task started"},
		{"running, one task killed, one queued", jobRead{rec: store.Job{ID: 2, State: store.JobRunning, Reason: "a task started"},
			tasks: 2, active: 1, queued: 1, stopping: 1, killedAt: at, killWhy: "time limit of 1h reached",
			nodes: []string{"b"}, open: []taskPart{{task: 1, node: "b", killing: true}}}, 0, false, "a task started"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := api.Job{State: string(tt.job.rec.State), Reason: tt.job.rec.Reason}
			showEnding(&out, &tt.job, at.Add(5*time.Second), false, tt.grace)
			if out.Ending != tt.wantEnding || out.Reason != tt.want {
				t.Errorf("ending %v, reason %q; want %v, %q", out.Ending, out.Reason, tt.wantEnding, tt.want)
			}
			if want := map[bool]string{true: "killing", false: out.State}[tt.wantEnding]; out.ShownState() != want {
				t.Errorf("shown state %q, want %q", out.ShownState(), want)
			}
		})
	}
}

// TestKilledJobEndingView: a job killed while its agent is silent stays
// killed in the store, but GET /jobs/{id} and the lists say it is still
// ending (ending, the reason), and state=killing selects it, until the
// agent reports the end.
func TestKilledJobEndingView(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	id := h.submit(jobSpec("one", 1, ""))
	h.step()
	h.sync(a, a)
	if code := h.do("POST", "/api/v1/jobs/1/kill", nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.clock.Advance(5 * time.Second) // the agent does not answer
	j := h.job(id)
	if j.State != "killed" || !j.Ending || j.Running != 1 || j.TaskList[0].State != "killing" {
		t.Fatalf("job %s ending %v running %d, task %s; want killed, ending, 1 running, task killing", j.State, j.Ending, j.Running, j.TaskList[0].State)
	}
	want := "being killed: 1 task still stopping on n1, its agent has not confirmed the end (for 5s, of a kill_grace of 30s); killed through the API by user:root"
	if j.Reason != want {
		t.Errorf("reason %q, want %q", j.Reason, want)
	}
	listed := func(query string) []api.Job {
		t.Helper()
		var out []api.Job
		if code := h.do("GET", "/api/v1/jobs"+query, nil, &out); code != 200 {
			t.Fatalf("GET /jobs%s: %d", query, code)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  bool
	}{{"", true}, {"?state=killing", true}, {"?state=killed", true}, {"?state=queued,running,killing", true},
		{"?state=running", false}, {"?state=queued,running", false}, {"?state=killing&limit=10", true}} {
		var got []api.Job
		if strings.Contains(tt.query, "limit") {
			var page api.JobPage
			if code := h.do("GET", "/api/v1/jobs"+tt.query, nil, &page); code != 200 {
				t.Fatalf("GET /jobs%s: %d", tt.query, code)
			}
			got = page.Jobs
		} else {
			got = listed(tt.query)
		}
		found := len(got) == 1 && got[0].ID == id && got[0].Ending && got[0].Reason == want
		if found != tt.want || (!tt.want && len(got) > 0) {
			t.Errorf("GET /jobs%s: %+v; want the ending job listed: %v", tt.query, got, tt.want)
		}
	}
	if code := h.do("GET", "/api/v1/jobs?state=stopping", nil, nil); code != 400 {
		t.Errorf("state=stopping: %d, want 400", code)
	}
	h.sync(a, a) // the agent reports the kill's end
	j = h.job(id)
	if j.State != "killed" || j.Ending || j.Running != 0 || j.Reason != "killed through the API by user:root" {
		t.Errorf("after the end: %s ending %v running %d reason %q", j.State, j.Ending, j.Running, j.Reason)
	}
	if got := listed("?state=killing"); len(got) != 0 {
		t.Errorf("state=killing after the end: %+v", got)
	}
}
