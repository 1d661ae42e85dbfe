package cli

import (
	"bytes"
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

// requeueOne is the master's POST /jobs/{id}/requeue: a running job's
// task is requeued, a queued one has nothing to requeue, an ended one is
// a 409; hold holds the job.
func (f *fakeMaster) requeueOne(j *api.Job, r *http.Request) (any, int) {
	var req api.Requeue
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return api.Error{Error: "request body: " + err.Error()}, 400
	}
	out := api.RequeueReply{}
	switch j.State {
	case "running":
		out.Requeued = 1
	case "queued":
	default:
		return api.Error{Error: fmt.Sprintf("job %d is %s: only a running, starting or queued job can be requeued", j.ID, j.State)}, 409
	}
	if req.Hold && j.Held == nil {
		j.Held, out.Held = &api.Held{By: "ana", At: time.Date(2026, 5, 1, 1, 12, 0, 0, time.UTC)}, true
	}
	out.Job = *j
	return out, 200
}

// requeueJobs is POST /jobs/requeue: a result each.
func (f *fakeMaster) requeueJobs(w http.ResponseWriter, r *http.Request) {
	var req api.RequeueJobs
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.IDs) == 0 {
		reply(w, 400, api.Error{Error: "ids: expected 1 to 1000 job IDs", Field: "ids"})
		return
	}
	res := make([]api.RequeueResult, len(req.IDs))
	for n, id := range req.IDs {
		res[n].ID = id
		i := slices.IndexFunc(f.jobs, func(j api.Job) bool { return j.ID == id })
		if i < 0 {
			res[n].Status, res[n].Error = 404, fmt.Sprintf("job %d does not exist", id)
			continue
		}
		body, _ := json.Marshal(api.Requeue{Hold: req.Hold})
		v, status := f.requeueOne(&f.jobs[i], httptest.NewRequest("POST", "/", bytes.NewReader(body)))
		if status != 200 {
			res[n].Status, res[n].Error = status, v.(api.Error).Error
			continue
		}
		x := v.(api.RequeueReply)
		res[n].Reply = &x
	}
	reply(w, 200, res)
}

// TestJobRequeue: allot job requeue says what it did for a running job,
// a queued one and with --hold, reports a job the master refuses while
// the others are requeued and fails then, and sends hold in the body.
func TestJobRequeue(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "a running job", args: []string{"job", "requeue", "3"},
			out: "job 3 (llm-pretrain): 1 task checkpointing; it waits in the queue again and resumes from its checkpoint if it wrote one (else from the start)\n"},
		{name: "a queued job", args: []string{"job", "requeue", "5"},
			out: "job 5 (asha): nothing running to requeue: queued\n"},
		{name: "an ended job alone", args: []string{"job", "requeue", "2"},
			err: "job 2 is completed: only a running, starting or queued job can be requeued"},
		{name: "several, one ended", args: []string{"job", "requeue", "2", "5"},
			out:    "job 5 (asha): nothing running to requeue: queued\n",
			errOut: "allot: master: 409 Conflict: job 2 is completed: only a running, starting or queued job can be requeued\n",
			err:    "1 job of 2 not requeued"},
		{name: "hold a running job", args: []string{"job", "requeue", "--hold", "3"},
			out: "job 3 (llm-pretrain): 1 task checkpointing, then held; allot job release 3 resumes it\n"},
		{name: "hold a queued job", args: []string{"job", "requeue", "-H", "6"},
			out: "job 6 (notebook): nothing running to requeue; held; allot job release 6 lets it start\n"},
		{name: "a bad ID sends nothing", args: []string{"job", "requeue", "x"}, err: `job ID: expected a positive integer, got "x"`},
	})
	out, _, err := runAt(t, f, "job", "requeue", "3", "-o", "json")
	var r api.RequeueReply
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.Requeued != 1 || r.ID != 3 {
		t.Errorf("job requeue 3 -o json: %v; want the reply, 1 requeued:\n%s", err, out)
	}
	if !strings.Contains(strings.Join(f.requests, "\n"), "/api/v1/jobs/3/requeue") {
		t.Errorf("requests %q: want POST /jobs/3/requeue", f.requests)
	}
}
