package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestRequeueCheckpointWords: a requeued task's return is worded by what
// its agent said its checkpoint directory held as the attempt ended
// (api.Report.Checkpoint): the attempt keeps it, and the task's reason,
// its event and the explanation say it resumes from its checkpoint or
// starts over; an agent that says nothing (older than the field) leaves
// today's words (trial 2026-11-29c C5).
func TestRequeueCheckpointWords(t *testing.T) {
	for _, c := range []struct {
		name, ckpt string
		want       store.Checkpoint
		waits      string // the task's reason's end
		explain    string
	}{
		{"unknown", "", store.CheckpointUnknown, ", waiting to resume from its checkpoint if it wrote one",
			"(attempt 1), and resumes from its checkpoint if it wrote one."},
		{"written", api.CheckpointWritten, store.CheckpointWritten, ", waiting to resume from its checkpoint",
			"(attempt 1), and resumes from its checkpoint."},
		{"none", api.CheckpointNone, store.CheckpointNone, ", waiting to start over: it wrote no checkpoint",
			"(attempt 1), and starts over: it wrote no checkpoint."},
		{"a value the master does not know", "maybe", store.CheckpointUnknown,
			", waiting to resume from its checkpoint if it wrote one", "(attempt 1), and resumes from its checkpoint if it wrote one."},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			a.HoldPreempt, a.Checkpoint = true, c.ckpt
			ana := h.as("ana", "default=member")
			id := h.submitAs("ana", jobSpec("train", 2, ""))
			h.step()
			h.sync(a)
			h.sync(a)
			if code := h.doAs(ana, "POST", fmt.Sprintf("/api/v1/jobs/%d/requeue", id), nil, nil); code != http.StatusOK {
				t.Fatalf("requeue: %d", code)
			}
			h.sync(a)
			a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
			h.sync(a)
			if st := h.taskState(id, 0); st != store.TaskQueued {
				t.Fatalf("task: %s, want queued", st)
			}
			if j := h.job(id); !strings.HasSuffix(j.Reason, c.waits) {
				t.Errorf("job reason %q, want it to end %q", j.Reason, c.waits)
			}
			if j := h.job(id); c.ckpt == api.CheckpointWritten && strings.HasSuffix(j.Reason, "if it wrote one") {
				t.Errorf("job reason %q: the agent said it wrote one", j.Reason)
			}
			atts, err := h.m.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if err != nil || len(atts) != 1 || atts[0].Checkpoint != c.want {
				t.Fatalf("attempts %+v (%v), want one with checkpoint %q", atts, err, c.want)
			}
			var x api.Explanation
			if code := h.doAs(ana, "GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != http.StatusOK ||
				!strings.Contains(x.Summary, c.explain) {
				t.Errorf("explain: %d %q, want %q", code, x.Summary, c.explain)
			}
		})
	}
}

// TestAgentAccepts: the registration reply names the fields the master
// takes, which an agent sends only to a master that names them.
func TestAgentAccepts(t *testing.T) {
	h := newHarness(t)
	a := &mastertest.Agent{Master: h.srv.URL, Name: "n1", GPUs: 1, Token: h.tokenFor("/api/v1/agents/n1", nil)}
	reply, err := a.Register(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{api.AcceptReportCheckpoint, api.AcceptSyncStarting} {
		if !strings.Contains(strings.Join(reply.Accepts, " "), f) {
			t.Errorf("accepts %q, want %q among them", reply.Accepts, f)
		}
	}
}

// TestDeferredStartKept: a start its agent holds back for GPUs still
// being freed (agentd's deferred start), listed starting in its syncs
// (api.Sync.Starting), is not ended as not run past the start grace, as
// an unanswered start is; it runs once the agent starts it.
func TestDeferredStartKept(t *testing.T) {
	for _, c := range []struct {
		name   string
		exit   mastertest.Exit
		ending bool // ended past the grace as not run
	}{
		{"deferred and listed starting", mastertest.Exit{Deferred: true}, false},
		{"unanswered", mastertest.Exit{Silent: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 1)
			a.OnStart = func(agent.TaskSpec) *mastertest.Exit { e := c.exit; return &e }
			id := h.submit(jobSpec("train", 1, ""))
			h.step()
			h.sync(a)
			if len(a.Started()) != 1 {
				t.Fatalf("the agent got %d starts, want 1", len(a.Started()))
			}
			for range 3 {
				h.clock.Advance(h.m.agents.startGrace() + time.Second)
				h.sync(a)
			}
			j := h.job(id)
			if ended := len(j.TaskList[0].Attempts) != 1 || h.taskState(id, 0) != store.TaskStarting; ended != c.ending {
				t.Fatalf("past the start grace: task %s, attempts %+v; want ended %v", h.taskState(id, 0), j.TaskList[0].Attempts, c.ending)
			}
			if c.ending {
				return
			}
			if !a.Release(tid(id, 0, 1)) {
				t.Fatal("the agent held no start")
			}
			h.sync(a)
			if st := h.taskState(id, 0); st != store.TaskRunning {
				t.Errorf("once started: task %s, want running", st)
			}
		})
	}
}
