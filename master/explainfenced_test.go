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

// TestExplainFencedApart: an attempt that its agent's fence (or its task
// shim's) stopped while the master was down, and that the agent reported
// preempted once the master was back, is listed by explain apart from
// the preemptions, dated by its stop (the report's exit time), with the
// master's return (its start, trial 2026-11-29b B2) and the report's
// arrival beside it and the attempt that resumed the task; the
// summary counts it as no preemption, and allot job show's attempt is
// marked fenced (trial 2026-11-29a A8).
func TestExplainFencedApart(t *testing.T) {
	tests := []struct {
		name, err string
	}{
		{"the agent's fence", "stopped by the agent's fence: no reply from the master for 21s; the master requeues the attempt elsewhere after 30s without contact"},
		{"the task shim's fence, the agent gone", "ended by SIGTERM; " + agent.FenceStopped +
			": the agent was gone and the master not heard for 21s, after which it requeues the attempt elsewhere; the agent was down when it ended (status from the task shim)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 1)
			id := h.submit(jobSpec("train", 1, `, "preemptible": true`))
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s, want running", got)
			}
			// The master dies; 21 s after its last reply the fence stops
			// the attempt; the master is back 46 s after it died.
			h.clock.Advance(21 * time.Second)
			stopped := h.clock.Now()
			h.clock.Advance(25 * time.Second)
			h.start()
			back := h.clock.Now()
			h.clock.Advance(11 * time.Second) // the agent registers and reports
			reported := h.clock.Now()
			a.Inject(api.Report{Task: tid(id, 0, 1), Event: api.EventExited, Outcome: string(agent.OutcomePreempted),
				Error: tt.err, At: stopped})
			a.Forget(tid(id, 0, 1))
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s after the report, want running again (attempt 2)", got)
			}

			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if len(x.Preempted) != 0 || len(x.Preemptions) != 0 || len(x.Lost) != 0 {
				t.Fatalf("preempted %+v, preemptions %q, lost %+v: want none", x.Preempted, x.Preemptions, x.Lost)
			}
			if len(x.Fenced) != 1 {
				t.Fatalf("fenced %+v, want attempt 1", x.Fenced)
			}
			f := x.Fenced[0]
			if f.Task != 0 || f.Attempt != 1 || f.ExitedAt == nil || !f.ExitedAt.Equal(stopped) || !f.At.Equal(reported) {
				t.Fatalf("fenced %+v (exited %v), want task 0 attempt 1 stopped at %s, reported at %s", f, f.ExitedAt, stopped, reported)
			}
			// B2: the master's return is its start (the audit's "master
			// start"), not the report's arrival.
			if f.MasterBack == nil || !f.MasterBack.Equal(back) {
				t.Fatalf("master back %v, want %s (its start)", f.MasterBack, back)
			}
			if !strings.Contains(f.Why, "fence") || !strings.HasSuffix(f.Why, "; attempt 2 resumed from its checkpoint") {
				t.Fatalf("why %q, want the agent's words, then attempt 2", f.Why)
			}
			if strings.Contains(x.Summary, "was preempted") || !strings.Contains(x.Summary,
				"Its task 0 was stopped once by its agent's fence while the master was unreachable") {
				t.Fatalf("summary %q, want the fence's stop and no preemption", x.Summary)
			}

			j := h.job(id)
			atts := j.TaskList[0].Attempts
			if len(atts) != 2 || !atts[0].Fenced || atts[0].EndState != "preempted" || atts[1].Fenced {
				t.Fatalf("attempts %+v, want attempt 1 fenced, attempt 2 running", atts)
			}
		})
	}
}

// TestFencedEndNeedsNoRequest: an attempt a pass asked to checkpoint
// whose end the fence then hastened stays a preemption: the pass's
// request (its preempting event) is what ended it.
func TestFencedEndNeedsNoRequest(t *testing.T) {
	a := store.Attempt{EndState: store.AttemptPreempted, Reason: "preempted: stopped by the agent's fence: no reply from the master for 21s"}
	tests := []struct {
		name    string
		a       store.Attempt
		decided bool
		want    bool
	}{
		{"fenced", a, false, true},
		{"asked by a pass first", a, true, false},
		{"a preemption", store.Attempt{EndState: store.AttemptPreempted, Reason: "preempted: ended by SIGTERM"}, false, false},
		{"the credential revoked", store.Attempt{EndState: store.AttemptPreempted,
			Reason: "preempted: stopped by the agent: the master revoked the node's credential"}, false, false},
		{"lost, not preempted", store.Attempt{EndState: store.AttemptLost, Reason: a.Reason}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fencedEnd(tt.a, tt.decided); got != tt.want {
				t.Fatalf("fencedEnd = %v, want %v", got, tt.want)
			}
		})
	}
}
