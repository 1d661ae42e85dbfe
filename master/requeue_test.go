package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// TestRequeueResumes: the owner's requeue of a running job asks its task
// to checkpoint with the pool's grace, as a preemption does; once the
// attempt ends preempted the task waits again (its reason naming who
// requeued it) and its next attempt has the same checkpoint directory.
// The events, the audit and the job's view say so; no preemption budget
// is charged.
func TestRequeueResumes(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	a.HoldPreempt = true
	ana := h.as("ana", "default=member")
	id := h.submitAs("ana", jobSpec("train", 2, ""))
	h.step()
	h.sync(a)
	h.sync(a)
	if st := h.taskState(id, 0); st != store.TaskRunning {
		t.Fatalf("task: %s, want running", st)
	}
	dir := h.checkpointDir(id)
	path := fmt.Sprintf("/api/v1/jobs/%d/requeue", id)
	var reply api.RequeueReply
	if code := h.doAs(ana, "POST", path, nil, &reply); code != http.StatusOK || reply.Requeued != 1 || reply.Held {
		t.Fatalf("requeue: %d, %+v; want 200, 1 task requeued, not held", code, reply)
	}
	if st := h.taskState(id, 0); st != store.TaskPreempting {
		t.Fatalf("task after the requeue: %s, want preempting", st)
	}
	var x0 api.Explanation
	if code := h.doAs(ana, "GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x0); code != http.StatusOK ||
		!strings.Contains(x0.Summary, "It is being requeued: requeued by ana at 2026-05-01 12:00 UTC; checkpointing since") {
		t.Errorf("explain while it checkpoints: %d %q", code, x0.Summary)
	}
	h.sync(a)
	var preempt *api.Command
	for _, c := range a.Commands() {
		if c.Type == api.CommandPreempt {
			preempt = &c
		}
	}
	if preempt == nil || preempt.GraceS != int64(DefaultGrace.Seconds()) {
		t.Fatalf("commands %+v: want a preempt with the pool's grace %v", a.Commands(), DefaultGrace)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	if st := h.taskState(id, 0); st != store.TaskQueued {
		t.Fatalf("task after its checkpoint: %s, want waiting again", st)
	}
	wantReason := "requeued by ana at 2026-05-01 12:00 UTC, waiting to resume from its checkpoint if it wrote one"
	if j := h.job(id); j.Reason != wantReason {
		t.Errorf("job reason %q, want %q", j.Reason, wantReason)
	}
	var x api.Explanation
	if code := h.doAs(ana, "GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != http.StatusOK ||
		!strings.Contains(x.Summary, "Its task 0 was requeued by ana at 2026-05-01 12:00 UTC (attempt 1)") ||
		strings.Contains(x.Summary, "preempted") {
		t.Errorf("explain: %d %q; want it to say who requeued it, and no preemption", code, x.Summary)
	}
	h.step()
	h.sync(a)
	h.sync(a)
	if st := h.taskState(id, 0); st != store.TaskRunning {
		t.Fatalf("task after the next pass: %s, want running again", st)
	}
	if got := h.checkpointDir(id); got != dir {
		t.Errorf("checkpoint dir %q after the requeue, want %q kept", got, dir)
	}
	var evs api.JobEvents
	if code := h.doAs(ana, "GET", fmt.Sprintf("/api/v1/jobs/%d/events", id), nil, &evs); code != http.StatusOK {
		t.Fatalf("GET events: %d", code)
	}
	// Trial 2026-11-29c C5: the master cannot know a checkpoint was
	// written, so the attempt's end claims none.
	var requeued, waits, stopped bool
	for _, e := range evs.Events {
		stopped = stopped || e.To == string(store.TaskPreempted) && e.Reason == "stopped for a checkpoint: requeued by ana at 2026-05-01 12:00 UTC"
		requeued = requeued || e.To == string(store.TaskPreempting) && strings.HasPrefix(e.Reason, "requeued by ana at ")
		waits = waits || e.To == string(store.TaskQueued) && strings.HasSuffix(e.Reason, ", waiting to resume from its checkpoint if it wrote one")
	}
	if !requeued || !waits || !stopped {
		t.Errorf("events %+v: want the requeue by ana, the attempt stopped for a checkpoint and the task waiting to resume", evs.Events)
	}
	if e := h.newestAudit("POST " + path); e.Detail != "requeued 1 task" {
		t.Errorf("audit: %+v, want requeued 1 task", e)
	}
	if n := h.m.planner.preemptedCount("default", h.m.now()); n != 0 {
		t.Errorf("preemption budget charged %d, want none for a requeue", n)
	}
}

// TestRequeueHold: requeue --hold holds the job at once; its task
// checkpoints and then waits held, however many GPUs are free, until
// its release, when it resumes. A queued job's requeue changes nothing
// and says so; with hold it holds it.
func TestRequeueHold(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	ana := h.as("ana", "default=member")
	id := h.submitAs("ana", jobSpec("train", 2, ""))
	h.step()
	h.sync(a)
	queued := h.submitAs("ana", jobSpec("next", 2, ""))
	h.step()
	steps := []struct {
		name      string
		job       int64
		hold      bool
		want      int
		wantHeld  bool
		wantState store.TaskState
	}{
		{"a queued job: nothing to requeue", queued, false, 0, false, store.TaskQueued},
		{"a queued job with hold: held", queued, true, 0, true, store.TaskQueued},
		{"requeue and hold a running job: it waits held on free GPUs", id, true, 1, true, store.TaskQueued},
		{"a held job again: nothing changes", id, true, 0, false, store.TaskQueued},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var reply api.RequeueReply
			code := h.doAs(ana, "POST", fmt.Sprintf("/api/v1/jobs/%d/requeue", st.job), api.Requeue{Hold: st.hold}, &reply)
			if code != http.StatusOK || reply.Requeued != st.want || reply.Held != st.wantHeld {
				t.Fatalf("requeue: %d, %+v; want 200, %d requeued, held now %v", code, reply, st.want, st.wantHeld)
			}
			h.sync(a)
			h.step()
			h.sync(a)
			if got := h.taskState(st.job, 0); got != st.wantState {
				t.Fatalf("task: %s, want %s", got, st.wantState)
			}
			if j := h.job(st.job); j.Held == nil || j.Pending == nil || j.Pending.Reason != lifecycle.ReasonHeld {
				if st.hold {
					t.Fatalf("job: held %+v, pending %+v; want held", j.Held, j.Pending)
				}
			}
		})
	}
	if code := h.doAs(ana, "POST", fmt.Sprintf("/api/v1/jobs/%d/release", id), nil, nil); code != http.StatusOK {
		t.Fatalf("release: %d", code)
	}
	h.step()
	h.sync(a)
	h.sync(a)
	if st := h.taskState(id, 0); st != store.TaskRunning {
		t.Fatalf("released job's task: %s, want running (resumed)", st)
	}
}

// TestRequeueRefusals: who may requeue a job, and which jobs may be
// requeued: its owner, its project's admin; not another member or a
// viewer; an ended job, no such job and a job whose exit actions would
// fail its task are refused, each naming why. A job that is not
// preemptible may be requeued by its owner, within its exit actions:
// max_retries 0 on it is taken at submission and refuses the requeue.
func TestRequeueRefusals(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 8)
	ana := h.as("ana", "default=member")
	bea := h.as("bea", "default=member")
	cy := h.as("cy", "default=viewer")
	running := h.submitAs("ana", jobSpec("running", 1, ""))
	pinned := h.submitAs("ana", jobSpec("pinned", 1, `, "preemptible": false`))
	failing := h.submitAs("ana", jobSpec("failing", 1, `, "preemptible": true, "on_preempt": "fail"`))
	once := h.submitAs("ana", jobSpec("once", 1, `, "preemptible": false, "max_retries": 0`))
	ended := h.submitAs("ana", jobSpec("ended", 1, ""))
	if code := h.doAs(ana, "POST", fmt.Sprintf("/api/v1/jobs/%d/kill", ended), nil, nil); code != http.StatusOK {
		t.Fatalf("kill: %d", code)
	}
	h.step()
	h.sync(a)
	cases := []struct {
		name, token string
		job         int64
		status      int
		says        string
	}{
		{"another member may not", bea, running, 403, "belongs to ana"},
		{"a viewer may not", cy, running, 403, "belongs to ana"},
		{"an ended job", ana, ended, 409, fmt.Sprintf("job %d is killed: only a running, starting or queued job can be requeued", ended)},
		{"no such job", ana, 999, 404, "job 999 does not exist"},
		{"exit actions that fail it", ana, failing, 409, "its exit actions (on_preempt: fail) would fail task 0 rather than requeue it"},
		{"exit actions of a job not preemptible", ana, once, 409, "its exit actions (max_retries 0, requeued 0 times already) would fail task 0 rather than requeue it"},
		{"the owner may", ana, running, 200, ""},
		{"the owner may requeue a job not preemptible", ana, pinned, 200, ""},
		{"an admin may", h.admin, running, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e api.Error
			code := h.doAs(c.token, "POST", fmt.Sprintf("/api/v1/jobs/%d/requeue", c.job), nil, &e)
			if code != c.status || !strings.Contains(e.Error, c.says) {
				t.Fatalf("requeue job %d: %d %q, want %d saying %q", c.job, code, e.Error, c.status, c.says)
			}
		})
	}
	if code, body, _ := h.raw("POST", fmt.Sprintf("/api/v1/jobs/%d/requeue", running), `{"hold": "yes"}`); code != http.StatusBadRequest {
		t.Errorf("a malformed body: %d %s, want 400", code, body)
	}
}

// TestRequeueList: POST /jobs/requeue requeues a list, each job with its
// own result, held too with hold; an empty list is a 400.
func TestRequeueList(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	running := h.submit(jobSpec("running", 2, ""))
	h.step()
	h.sync(a)
	queued := h.submit(jobSpec("queued", 2, ""))
	var res []api.RequeueResult
	ids := []int64{running, queued, 999}
	if code := h.do("POST", "/api/v1/jobs/requeue", api.RequeueJobs{IDs: ids, Hold: true}, &res); code != http.StatusOK || len(res) != 3 {
		t.Fatalf("POST /jobs/requeue: %d, %d results", code, len(res))
	}
	for i, want := range []int{1, 0} {
		t.Run(fmt.Sprintf("job %d", ids[i]), func(t *testing.T) {
			if r := res[i].Reply; r == nil || r.Requeued != want || !r.Held || r.Job.Held == nil {
				t.Fatalf("result %+v, want %d requeued and held", res[i], want)
			}
		})
	}
	if res[2].Status != http.StatusNotFound {
		t.Errorf("no such job: %+v, want 404", res[2])
	}
	if e := h.newestAudit("POST /api/v1/jobs/requeue"); !strings.Contains(e.Detail, fmt.Sprintf("%d: requeued 1 task; held", running)) {
		t.Errorf("audit: %q", e.Detail)
	}
	if code := h.do("POST", "/api/v1/jobs/requeue", api.RequeueJobs{}, nil); code != http.StatusBadRequest {
		t.Errorf("an empty list: %d, want 400", code)
	}
}

// checkpointDir is task 0's checkpoint directory of job id, as stored.
func (h *harness) checkpointDir(id int64) string {
	h.t.Helper()
	ts, err := h.m.st.Tasks(h.ctx, store.TaskFilter{JobID: id})
	if err != nil || len(ts) == 0 {
		h.t.Fatalf("tasks of job %d: %v", id, err)
	}
	return ts[0].CheckpointDir
}
