package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// endingJob is a job killed while its agent has not confirmed the end:
// stored killed, its task still stopping (api.Job.Ending).
func endingJob() api.Job {
	return api.Job{ID: 7, Name: "sweep", Kind: "command", State: "killed", Ending: true, Project: "vision", User: "ana",
		Pool: "batch", Slots: 2, Tasks: 1, Running: 1, Holding: 2, Priority: 42, Weight: 1, SubmittedAt: t0.Add(-10 * time.Minute),
		EndedAt: ptr(t0), Entrypoint: "python sweep.py",
		Reason: "being killed: 1 task still stopping on dgx-1, its agent has not confirmed the end (for 5s); killed through the API by user:ana"}
}

// TestJobsKilling: allot jobs and allot job show call a job still being
// killed killing, with the master's reason, not killed, and list it by
// default; --state killing lists it alone, --state killed with the
// killed jobs, --state running not.
func TestJobsKilling(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	f.jobs = append(f.jobs, endingJob())
	const head = "POS  ID  NAME   STATE    POOL   PROJECT  SLOTS  TASKS  START  REASON\n"
	const row = "-    7   sweep  killing  batch  vision   2      1/1    -      being killed: 1 task still stopping on dgx-1, its agent has not confirmed the end (for 5s); killed through the API by user:ana\n"
	runCLICases(t, f, []cliCase{
		{name: "killing", args: []string{"jobs", "--state", "killing"}, out: head + row},
		{name: "killed takes the jobs still killing", args: []string{"jobs", "--state", "killed", "--pool", "batch"}, out: head + row},
		{name: "not running", args: []string{"jobs", "--state", "running", "--pool", "batch"},
			out: "POS  ID  NAME  STATE  POOL  PROJECT  SLOTS  TASKS  START  REASON\n"},
		{name: "kill again", args: []string{"job", "kill", "7"}, out: "job 7 (sweep) is already being killed: 1 task still stopping\n"},
	})
	out, _, err := runAt(t, f, "jobs", "--pool", "batch")
	if err != nil || !strings.Contains(out, "\n-    7   sweep     killing  batch") || !strings.Contains(out, "1/1    -      being killed: 1 task") {
		t.Errorf("allot jobs: %v\n%s\nwant job 7 killing", err, out)
	}
	out, _, err = runAt(t, f, "job", "show", "7")
	for _, want := range []string{"\nState           killing\n", "\nTasks           1 still stopping of 1\n",
		"\nKill requested  2024-05-01 10:00:00\n", "\nEnded           not yet: 1 task still stopping\n", "Reason          being killed: 1 task"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("allot job show 7: %v; want %q in\n%s", err, want, out)
		}
	}
}

// TestJobShowKillTimes: allot job show gives a job killed while its
// task ran both when the kill was requested and when it ended, its last
// task's end; a running job whose task its time limit is killing shows
// killing, since when, and no end yet, and --state running and killing
// both list it.
func TestJobShowKillTimes(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	killed := endingJob()
	killed.ID, killed.Ending, killed.Running = 8, false, 0
	killed.KillRequestedAt, killed.EndedAt = ptr(t0.Add(-time.Minute)), ptr(t0)
	killed.Reason = "killed through the API by user:ana"
	limited := endingJob()
	limited.ID, limited.State, limited.KillRequestedAt, limited.EndedAt = 9, "running", ptr(t0.Add(-5*time.Second)), nil
	limited.Reason = "being killed: 1 task still stopping on dgx-1, its agent has not confirmed the end (for 5s); time limit of 1h reached"
	f.jobs = append(f.jobs, killed, limited)
	for _, tc := range []struct {
		id         string
		want, nots []string
	}{
		{"8", []string{"\nState           killed\n", "\nKill requested  2024-05-01 09:59:00\n", "\nEnded           2024-05-01 10:00:00\n"},
			[]string{"not yet", "Killing since"}},
		// One name for the one field, whoever asked for the kill: the
		// time limit here (it read "Killing since").
		{"9", []string{"\nState           killing\n", "\nKill requested  2024-05-01 09:59:55\n",
			"\nEnded           not yet: 1 task still stopping\n", "time limit of 1h reached"}, []string{"Killing since"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			out, _, err := runAt(t, f, "job", "show", tc.id)
			for _, want := range tc.want {
				if err != nil || !strings.Contains(out, want) {
					t.Errorf("allot job show %s: %v; want %q in\n%s", tc.id, err, want, out)
				}
			}
			for _, not := range tc.nots {
				if strings.Contains(out, not) {
					t.Errorf("allot job show %s: %q in\n%s", tc.id, not, out)
				}
			}
		})
	}
	for _, state := range []string{"running", "killing"} {
		out, _, err := runAt(t, f, "jobs", "--state", state, "--pool", "batch")
		if err != nil || !strings.Contains(out, "\n-    9   sweep  killing  batch") {
			t.Errorf("allot jobs --state %s: %v\n%s\nwant job 9 killing", state, err, out)
		}
	}
}

// TestJobsOlderMaster: a master that does not know the killing filter
// refuses it; allot jobs asks again without it.
func TestJobsOlderMaster(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/jobs") { // whoami for the hidden jobs' note: an older master has none
			reply(w, 404, api.Error{Error: "not found"})
			return
		}
		s := r.URL.Query().Get("state")
		asked = append(asked, s)
		if strings.Contains(s, "killing") {
			reply(w, 400, api.Error{Error: `state "killing": expected one of queued, running, completed, failed, killed`, Field: "state"})
			return
		}
		reply(w, 200, []api.Job{{ID: 1, Name: "a", State: "running", Pool: "p", Project: "q", Slots: 1, Tasks: 1, Running: 1}})
	}))
	t.Cleanup(srv.Close)
	out, _, err := run(t, "--master", srv.URL, "jobs")
	if err != nil || !strings.Contains(out, "running") || strings.Join(asked, " ") != "queued,running,killing queued,running" {
		t.Errorf("allot jobs: %v, asked %q\n%s", err, asked, out)
	}
	if _, _, err := run(t, "--master", srv.URL, "jobs", "--state", "killing"); err == nil || !strings.Contains(err.Error(), "killing") {
		t.Errorf("--state killing of an older master: %v, want its error", err)
	}
}

// TestListedPriority: allot jobs -o wide gives a job waiting in a
// multifactor pool its multi-factor priority, which orders that queue,
// one running there the one it started with, and every other job its
// 1-99 priority with its class.
func TestListedPriority(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  api.Job
		want string
	}{
		{"waiting in a multifactor pool", api.Job{Priority: 42, Pending: &api.Pending{Priority: 10500.005}},
			"10500.0050 (multifactor)"},
		{"waiting elsewhere", api.Job{Priority: 42, Pending: &api.Pending{Reason: "no_capacity"}}, "42 (NORMAL)"},
		{"running", api.Job{Priority: 20, PriorityClass: "HIGH"}, "20 (HIGH)"},
		// Beside the waiting ones, the priority it started with, which it
		// keeps, as squeue shows a running job's; not its 1-99 priority,
		// which the pool does not read.
		{"running in a multifactor pool", api.Job{Priority: 42, Running: 1, MultifactorPriority: 10500.0011},
			"10500.0011 (multifactor, at start)"},
		{"running with tasks waiting in a multifactor pool", api.Job{Priority: 42, Running: 1, MultifactorPriority: 10500.0011,
			Pending: &api.Pending{Priority: 10600.5}}, "10600.5000 (multifactor)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listedPriority(tc.job); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestListedSlots: SLOTS adds what a job holds only where it differs from
// its slots per running task (an elastic task running shrunk).
func TestListedSlots(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  api.Job
		want string
	}{
		{"queued", api.Job{Slots: 4}, "4"},
		{"two tasks at full size", api.Job{Slots: 4, Running: 2, Holding: 8}, "4"},
		{"elastic, running shrunk", api.Job{Slots: 4, Running: 1, Holding: 2}, "4 (2 held)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listedSlots(tc.job); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
