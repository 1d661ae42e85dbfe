package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// holdOne holds (hold true) or releases one job, as the master's POST
// /jobs/{id}/hold and /release: idempotent, a 409 for an ended or
// running job's hold.
func (f *fakeMaster) holdOne(hold bool) func(j *api.Job, _ *http.Request) (any, int) {
	return func(j *api.Job, _ *http.Request) (any, int) {
		switch {
		case j.State != "queued" && j.State != "running":
			return api.Error{Error: fmt.Sprintf("job %d is %s: only a queued job can be held", j.ID, j.State)}, 409
		case hold && j.State == "running":
			return api.Error{Error: fmt.Sprintf("job %d is running: it has 1 task holding slots", j.ID)}, 409
		case hold == (j.Held != nil):
			return api.HoldReply{Job: *j}, 200
		case hold:
			j.Held = &api.Held{By: "ana", At: time.Date(2026, 5, 1, 1, 12, 0, 0, time.UTC)}
		default:
			j.Held = nil
		}
		return api.HoldReply{Job: *j, Changed: true}, 200
	}
}

// holdJobs is POST /jobs/hold and /release: a result each.
func (f *fakeMaster) holdJobs(hold bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req api.HoldJobs
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.IDs) == 0 {
			reply(w, 400, api.Error{Error: "ids: expected 1 to 1000 job IDs", Field: "ids"})
			return
		}
		res := make([]api.HoldResult, len(req.IDs))
		for n, id := range req.IDs {
			res[n].ID = id
			i := slices.IndexFunc(f.jobs, func(j api.Job) bool { return j.ID == id })
			if i < 0 {
				res[n].Status, res[n].Error = 404, fmt.Sprintf("job %d does not exist", id)
				continue
			}
			v, status := f.holdOne(hold)(&f.jobs[i], r)
			if status != 200 {
				res[n].Status, res[n].Error = status, v.(api.Error).Error
				continue
			}
			x := v.(api.HoldReply)
			res[n].Reply = &x
		}
		reply(w, 200, res)
	}
}

// TestJobHoldRelease: allot job hold and release say what they did,
// that a second hold or a release of a job not held changed nothing
// (and still succeed, as scontrol's do), report a job the master
// refuses while the others are done, and fail then; allot submit
// --hold asks for a held submission.
func TestJobHoldRelease(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "hold", args: []string{"job", "hold", "6"},
			out: "job 6 (notebook): held; allot job release 6 lets it start\n"},
		{name: "hold again", args: []string{"job", "hold", "6"},
			out: "job 6 (notebook) was already held by ana at 2026-05-01 01:12 UTC\n"},
		{name: "an ended job", args: []string{"job", "hold", "2"},
			err: "job 2 is completed: only a queued job can be held"},
		{name: "release several, one unknown", args: []string{"job", "release", "6", "77", "5"},
			out:    "job 6 (notebook): released; it waits by its submission time again\njob 5 (asha) was not held: queued\n",
			errOut: "allot: master: 404 Not Found: job 77 does not exist\n",
			err:    "1 job of 3 not released"},
		{name: "a bad ID sends nothing", args: []string{"job", "release", "x"}, err: `job ID: expected a positive integer, got "x"`},
	})
	out, _, err := runAt(t, f, "job", "hold", "5", "-o", "json")
	var r api.HoldReply
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || !r.Changed || r.Held == nil || r.ShownState() != api.JobStateHeld {
		t.Errorf("job hold 5 -o json: %v; want the reply, changed, held:\n%s", err, out)
	}
	file := writeTestFile(t, "j.yaml", "name: j\nentrypoint: y\n")
	if _, _, err := runAt(t, f, "submit", "--hold", file); err != nil {
		t.Fatalf("submit --hold: %v", err)
	}
	if last := f.requests[len(f.requests)-1]; !strings.Contains(last, "hold=true") {
		t.Errorf("submit --hold sent %q, want hold=true", last)
	}
}

// TestJobsStateHeld (trial 2026-11-29c C4): allot jobs -t held lists the
// queued jobs held, as the STATE column shows them, asking the master for
// them (state=held); -t queued lists them too, as Slurm's PD does; and
// allot job kill -t held takes them. A master older than the held filter
// refuses it: the CLI asks it for the queued jobs and keeps the held.
func TestJobsStateHeld(t *testing.T) {
	f := newFakeMaster(t)
	if _, _, err := runAt(t, f, "job", "hold", "6"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runAt(t, f, "jobs", "-t", "held")
	if err != nil || !strings.Contains(out, "\n2    6   notebook  held ") || strings.Contains(out, "asha") {
		t.Errorf("jobs -t held: %v\n%s\nwant job 6 alone, held", err, out)
	}
	if last := f.requests[len(f.requests)-1]; !strings.Contains(last, "state=held") {
		t.Errorf("jobs -t held asked %q, want state=held", last)
	}
	out, _, err = runAt(t, f, "jobs", "-t", "queued")
	if err != nil || !strings.Contains(out, "notebook  held") || !strings.Contains(out, "asha") {
		t.Errorf("jobs -t queued: %v\n%s\nwant jobs 5 and 6", err, out)
	}
	out, _, err = runAt(t, f, "job", "kill", "-t", "held", "-o", "json")
	var rs []api.KillReply
	if err != nil || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 1 || rs[0].ID != 6 {
		t.Errorf("job kill -t held: %v\n%s\nwant job 6 alone killed", err, out)
	}
}

// TestJobsHeldOlderMaster: a master older than state=held refuses it
// (400 on state); allot jobs -t held asks it for the queued jobs and
// lists the held ones of them.
func TestJobsHeldOlderMaster(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/jobs") { // whoami for the hidden jobs' note: an older master has none
			reply(w, 404, api.Error{Error: "not found"})
			return
		}
		s := r.URL.Query().Get("state")
		asked = append(asked, s)
		if s != "queued" {
			reply(w, 400, api.Error{Error: fmt.Sprintf("state %q: expected one of queued, running, killing, completed, failed, killed", s), Field: "state"})
			return
		}
		reply(w, 200, []api.Job{
			{ID: 1, Name: "waits", State: "queued", Pool: "p", Project: "q", Slots: 1, Tasks: 1},
			{ID: 2, Name: "kept", State: "queued", Pool: "p", Project: "q", Slots: 1, Tasks: 1, Held: &api.Held{By: "ana"}},
		})
	}))
	t.Cleanup(srv.Close)
	out, _, err := run(t, "--master", srv.URL, "jobs", "-t", "held")
	if err != nil || !strings.Contains(out, "kept") || strings.Contains(out, "waits") || strings.Join(asked, " ") != "held queued" {
		t.Errorf("allot jobs -t held: %v, asked %q\n%s\nwant job 2 alone, asked held then queued", err, asked, out)
	}
}
