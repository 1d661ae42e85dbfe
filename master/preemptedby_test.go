package master

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
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

// TestPreemptedForJobStartedElsewhere (trial n F19): an attempt
// preempted for a job that then started on other GPUs, freed while the
// attempt checkpointed, is not withdrawn, but its record (the job's view,
// allot explain) says that job never used its GPUs; while that job still
// waits nothing is added, and a job killed before it started is said so.
func TestPreemptedForJobStartedElsewhere(t *testing.T) {
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
	preemptedBy := func(t *testing.T) *api.PreemptedBy {
		t.Helper()
		atts := h.job(victim).TaskList[0].Attempts
		if len(atts) == 0 || atts[0].PreemptedBy == nil {
			t.Fatalf("victim's attempts %+v, want the first preempted by job %d", atts, high)
		}
		return atts[0].PreemptedBy
	}
	rule := "preempted for job " + strconv.FormatInt(high, 10) + " (priority 10 runs before the preempted job's 60)"
	t.Run("while the job it is for waits", func(t *testing.T) {
		if p := preemptedBy(t); p.StartedElsewhere || p.Why != rule {
			t.Fatalf("preempted_by %+v, want %q and nothing more", p, rule)
		}
	})
	// The first job ends: its GPUs, not the victim's, take the high job.
	h.clock.Advance(time.Second)
	a.Exit(tid(first, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a)
	highAtts := h.job(high).TaskList[0].Attempts
	victimAtts := h.job(victim).TaskList[0].Attempts
	if len(highAtts) != 1 || len(victimAtts) != 1 || slices.ContainsFunc(highAtts[0].Placement[0].GPUs, func(g int) bool {
		return slices.Contains(victimAtts[0].Placement[0].GPUs, g)
	}) {
		t.Fatalf("high job's attempts %+v, victim's %+v: want the high job started on the first job's GPUs", highAtts, victimAtts)
	}
	want := rule + ", which then started on other GPUs that freed meanwhile"
	t.Run("being preempted, the job started elsewhere", func(t *testing.T) {
		if p := preemptedBy(t); !p.StartedElsewhere || p.Why != want {
			t.Fatalf("preempted_by %+v, want started_elsewhere and %q", p, want)
		}
	})
	h.clock.Advance(10 * time.Second)
	a.Exit(tid(victim, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	t.Run("preempted, the job started elsewhere", func(t *testing.T) {
		if p := preemptedBy(t); !p.StartedElsewhere || p.Why != want {
			t.Fatalf("preempted_by %+v, want started_elsewhere and %q", p, want)
		}
	})
	t.Run("explain", func(t *testing.T) {
		var x api.Explanation
		must200(t, h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(victim, 10)+"/explain", nil, &x), "explain")
		if len(x.Preempted) != 1 || !strings.HasPrefix(x.Preempted[0].Why, want) {
			t.Fatalf("preempted %+v, want one saying %q", x.Preempted, want)
		}
	})
}

// TestPreemptedForJobKilledUnstarted: the job an attempt was preempted
// for, killed before it started, is said so on the attempt.
func TestPreemptedForJobKilledUnstarted(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	a.HoldPreempt = true
	victim := h.submit(jobSpec("victim", 2, `, "priority": 60, "preemptible": true`))
	h.step()
	h.sync(a, a)
	high := h.submit(jobSpec("high", 2, `, "priority": 10`))
	h.step()
	h.sync(a)
	if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(high, 10)+"/kill", nil, nil); code != http.StatusOK {
		t.Fatalf("kill job %d: %d", high, code)
	}
	a.Exit(tid(victim, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	p := h.job(victim).TaskList[0].Attempts[0].PreemptedBy
	want := "preempted for job " + strconv.FormatInt(high, 10) + " (priority 10 runs before the preempted job's 60), which was killed before it started"
	if p == nil || !p.StartedElsewhere || p.Why != want {
		t.Fatalf("preempted_by %+v, want %q", p, want)
	}
}
