package master

import (
	"strconv"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestAttemptPreemptedBy: a preempted attempt's view names the job that
// preempted it and the rule (allot job show and the job page read it,
// not only allot explain): in full for a caller who may read that job,
// by number, project and rule alone for one who may not; and the same
// after a restart, from the event log.
func TestAttemptPreemptedBy(t *testing.T) {
	cfg := mustConfig(t, "default_project: vision\npools:\n  - {name: default, policy: priority, preemption: true}\n"+
		"projects:\n  - name: vision\n  - name: nlp\n")
	h := newHarness(t, withConfig(cfg))
	h.as("bob", "nlp=member")
	h.as("alice", "vision=member")
	n1 := h.agent("n1", 2)
	low := h.submitAs("bob", `{"name": "low", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2, "priority": 70}}`)
	h.step()
	h.sync(n1)
	high := h.submitAs("alice", `{"name": "high", "project": "vision", "entrypoint": "x", "resources": {"slots": 2, "priority": 10}}`)
	h.step()
	h.sync(n1, n1) // the low job's attempt ends preempted
	preemptedBy := func(t *testing.T, token string) *api.PreemptedBy {
		t.Helper()
		var j api.Job
		must200(t, h.doAs(token, "GET", "/api/v1/jobs/"+strconv.FormatInt(low, 10), nil, &j), "job")
		if len(j.TaskList) != 1 || len(j.TaskList[0].Attempts) != 1 {
			t.Fatalf("tasks %+v, want one task with one attempt", j.TaskList)
		}
		a := j.TaskList[0].Attempts[0]
		if a.EndState != "preempted" {
			t.Fatalf("attempt ended %q, want preempted", a.EndState)
		}
		return a.PreemptedBy
	}
	t.Run("the job that preempted it", func(t *testing.T) {
		h.step()
		h.sync(n1)
		var j api.Job
		must200(t, h.doAs(h.admin, "GET", "/api/v1/jobs/"+strconv.FormatInt(high, 10), nil, &j), "job")
		if len(j.TaskList[0].Attempts) == 0 {
			t.Fatal("no attempt")
		}
		for _, a := range j.TaskList[0].Attempts {
			if a.PreemptedBy != nil {
				t.Errorf("attempt %d preempted by %+v, want none", a.Number, a.PreemptedBy)
			}
		}
	})
	full := api.PreemptedBy{Job: high, Reason: "priority", Why: "preempted for job " + strconv.FormatInt(high, 10) +
		" (priority 10 runs before the preempted job's 70)", Name: "high", User: "alice", Project: "vision"}
	hidden := full
	hidden.Name, hidden.User, hidden.Private = "", "", true
	for _, restarted := range []bool{false, true} {
		if restarted {
			h.start()
		}
		for _, tt := range []struct {
			name, token string
			want        api.PreemptedBy
		}{
			{"an admin", h.admin, full},
			{"the owner, who may not read the job that preempted it", h.as("bob"), hidden},
		} {
			t.Run(tt.name+map[bool]string{true: " after a restart"}[restarted], func(t *testing.T) {
				if got := preemptedBy(t, tt.token); got == nil || *got != tt.want {
					t.Errorf("preempted_by %+v, want %+v", got, tt.want)
				}
			})
		}
	}
}
