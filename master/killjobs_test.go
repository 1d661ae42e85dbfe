package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestKillJobsInOneStep: POST /jobs/kill kills its list under one hold of
// the lock, so killing a blocked head does not let the job behind it, in
// the same list, start before its own kill (trial r R5: two kills one
// request apart did); each job gets its own result, a refused or unknown
// one without stopping the others.
func TestKillJobsInOneStep(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 4)
	run := h.submit(jobSpec("runs", 2, ""))
	h.step()
	head := h.submit(jobSpec("head", 4, ""))
	behind := h.submit(jobSpec("behind", 2, ""))
	done := h.submit(jobSpec("done", 1, ""))
	if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(done, 10)+"/kill", nil, nil); code != http.StatusOK {
		t.Fatalf("kill of job done: %d", code)
	}
	h.step()
	if st := h.taskState(behind, 0); st != store.TaskQueued {
		t.Fatalf("setup: job behind is %s, want queued behind the head", st)
	}
	h.as("bea", "default=member")
	other := h.submitAs("bea", jobSpec("bea's", 1, ""))

	var res []api.KillResult
	ids := []int64{head, behind, 999, done, other}
	if code := h.doAs(h.as("ana", "default=member"), "POST", "/api/v1/jobs/kill", api.KillJobs{IDs: ids}, &res); code != http.StatusOK {
		t.Fatalf("POST /jobs/kill as ana: %d", code)
	}
	// ana may kill none of root's or bea's jobs: each is refused alone.
	for _, x := range res {
		if x.Reply != nil || x.Status != http.StatusForbidden && x.Status != http.StatusNotFound {
			t.Errorf("ana's kill of job %d: %+v, want refused", x.ID, x)
		}
	}
	res = nil
	if code := h.do("POST", "/api/v1/jobs/kill", api.KillJobs{IDs: ids}, &res); code != http.StatusOK || len(res) != len(ids) {
		t.Fatalf("POST /jobs/kill: %d, %d results for %d jobs", code, len(res), len(ids))
	}
	want := []struct {
		status int
		ended  bool
		says   string
	}{{0, false, ""}, {0, false, ""}, {404, false, "job 999 does not exist"}, {0, true, ""}, {0, false, ""}}
	for i, w := range want {
		x := res[i]
		if x.ID != ids[i] || x.Status != w.status || !strings.Contains(x.Error, w.says) || (x.Reply != nil) != (w.status == 0) ||
			x.Reply != nil && (x.Reply.AlreadyEnded != w.ended || x.Reply.State != "killed") {
			t.Errorf("result %d: %+v, want status %d, already ended %v, saying %q", i, x, w.status, w.ended, w.says)
		}
	}
	h.step()
	if st := h.taskState(behind, 0); st != store.TaskKilled {
		t.Errorf("job behind: %s, want killed while queued", st)
	}
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: behind})
	if err != nil || len(atts) != 0 {
		t.Errorf("job behind has attempts %+v (%v): it started before its kill", atts, err)
	}
	if st := h.taskState(run, 0); st == store.TaskKilled {
		t.Errorf("job runs, not in the list, was killed")
	}
	if code := h.do("POST", "/api/v1/jobs/kill", api.KillJobs{}, nil); code != http.StatusBadRequest {
		t.Errorf("an empty list: %d, want 400", code)
	}
}
