package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestPreemptingVictimTakerElsewhere: a victim still checkpointing for a
// job that has since started on other GPUs says so in allot jobs' reason,
// allot job show's and allot explain's, as its attempt's preempted_by
// does; while that job waits, it does not.
func TestPreemptingVictimTakerElsewhere(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	a.HoldPreempt = true // the victim takes its time to checkpoint
	first := h.submit(jobSpec("first", 2, `, "priority": 50`))
	victim := h.submit(jobSpec("victim", 2, `, "priority": 60, "preemptible": true`))
	h.step()
	h.sync(a, a)
	high := h.submit(jobSpec("high", 2, `, "priority": 10`))
	h.step()
	h.sync(a)
	if got := h.taskState(victim, 0); got != store.TaskPreempting {
		t.Fatalf("victim %s, want preempting for job %d", got, high)
	}
	note := ", which then started on other GPUs that freed meanwhile"
	reasons := func(t *testing.T) map[string]string {
		t.Helper()
		var list []api.Job
		must200(t, h.do("GET", "/api/v1/jobs", nil, &list), "list")
		out := map[string]string{}
		for _, j := range list {
			if j.ID == victim {
				out["list"] = j.Reason
				if j.Preempting != nil {
					out["list's preempting"] = j.Preempting.Why
				}
			}
		}
		out["job"] = h.job(victim).Reason
		var x api.Explanation
		must200(t, h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(victim, 10)+"/explain", nil, &x), "explain")
		out["explain"] = x.Summary
		return out
	}
	rule := "preempted for job " + strconv.FormatInt(high, 10)
	t.Run("while the job it is for waits", func(t *testing.T) {
		for where, r := range reasons(t) {
			if !strings.Contains(r, rule) || strings.Contains(r, note) {
				t.Errorf("%s: %q, want %q without %q", where, r, rule, note)
			}
		}
	})
	h.clock.Advance(time.Second)
	a.Exit(tid(first, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a)
	if got := h.taskState(high, 0); got != store.TaskRunning && got != store.TaskStarting {
		t.Fatalf("high job's task %s, want started on the first job's GPUs", got)
	}
	t.Run("the job it is for started elsewhere", func(t *testing.T) {
		got := reasons(t)
		if len(got) != 4 {
			t.Fatalf("reasons %q: want the list's, its preempting's, the job's and explain's", got)
		}
		for where, r := range got {
			if !strings.Contains(r, rule) || !strings.Contains(r, note) {
				t.Errorf("%s: %q, want %q with %q", where, r, rule, note)
			}
			if where != "list's preempting" && !strings.Contains(r, note+"; checkpointing since") {
				t.Errorf("%s: %q, want the note before the checkpoint's", where, r)
			}
		}
	})
}
