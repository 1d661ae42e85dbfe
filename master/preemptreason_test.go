package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestPreemptedJobReason: a job whose only task was preempted and
// requeued says so (allot job show's Reason), rather than "no task holds
// slots", which reads as if it had never run.
func TestPreemptedJobReason(t *testing.T) {
	h := newHarness(t)
	h.opt.Config = mustConfig(t, features)
	h.start()
	a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: "p1", Pool: "prio", GPUs: 2}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	low := h.submit(`{"name": "low", "pool": "prio", "entrypoint": "e", "resources": {"slots": 2, "priority": 70}}`)
	h.step()
	h.sync(a, a)
	high := h.submit(`{"name": "high", "pool": "prio", "entrypoint": "e", "resources": {"slots": 2, "priority": 10}}`)
	h.step()
	h.sync(a, a) // the low job's attempt ends preempted
	h.step()
	h.sync(a, a) // the high one's starts
	cases := []struct {
		name       string
		id         int64
		state, why string
	}{
		{"preempted and requeued", low, "queued", "preempted; waits to be rescheduled"},
		{"the job that preempted it", high, "running", "on p1 since "}, // where and since when it runs (readview_running.go)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := h.taskState(low, 0); got != store.TaskQueued {
				t.Fatalf("low task %s, want queued", got)
			}
			if j := h.job(c.id); j.State != c.state || !strings.HasPrefix(j.Reason, c.why) {
				t.Errorf("job %d: %s, %q; want %s, %q...", c.id, j.State, j.Reason, c.state, c.why)
			}
		})
	}
}
