package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestPreemptionCheckpointWords: a preempted task's return is worded by
// what its agent said its checkpoint directory held, as a requeued one's
// is (TestRequeueCheckpointWords): its requeue event, its job's reason
// and its explanation say it resumes from its checkpoint or starts over;
// an agent that says nothing (older than the field) leaves today's words.
func TestPreemptionCheckpointWords(t *testing.T) {
	for _, c := range []struct {
		name, ckpt      string
		event, job, why string // the preempted→queued reason, the job's reason, the end of explain's line
	}{
		{"unknown", "", "requeued after preemption", "preempted; waits to be rescheduled", "; stopped for a checkpoint after preemption"},
		{"written", api.CheckpointWritten, "requeued after preemption, waiting to resume from its checkpoint",
			"preempted; waits to resume from its checkpoint", "; it wrote a checkpoint to resume from"},
		{"none", api.CheckpointNone, "requeued after preemption, waiting to start over: it wrote no checkpoint",
			"preempted; waits to start over: it wrote no checkpoint", "; it wrote no checkpoint, so its task starts over"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, fmt.Sprintf(killPreemptPools, "10s", "30s"))))
			n1 := h.agent("n1", 4)
			n1.HoldPreempt, n1.Checkpoint = true, c.ckpt
			victim := h.submit(jobSpec("victim", 4, `, "priority": 80, "preemptible": true`))
			h.step()
			h.sync(n1, n1)
			h.submit(jobSpec("taker", 4, `, "priority": 10`))
			h.step()
			h.sync(n1)
			if !n1.Exit(tid(victim, 0, 1), agent.OutcomePreempted, 0) {
				t.Fatal("n1 does not run the victim")
			}
			h.sync(n1)
			if st := h.taskState(victim, 0); st != store.TaskQueued {
				t.Fatalf("victim's task %s, want queued", st)
			}
			var evs api.JobEvents
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/events", victim), nil, &evs); code != http.StatusOK {
				t.Fatalf("events: %d", code)
			}
			requeued := ""
			for _, e := range evs.Events {
				if e.Task != nil && e.From == string(store.TaskPreempted) && e.To == string(store.TaskQueued) {
					requeued = e.Reason
				}
			}
			if requeued != c.event {
				t.Errorf("preempted→queued reason %q, want %q", requeued, c.event)
			}
			if j := h.job(victim); j.Reason != c.job {
				t.Errorf("job reason %q, want %q", j.Reason, c.job)
			}
			var x api.Explanation
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", victim), nil, &x); code != http.StatusOK ||
				len(x.Preempted) != 1 || !strings.HasSuffix(x.Preempted[0].Why, c.why) {
				t.Errorf("explain: %d, preempted %+v, want its line to end %q", code, x.Preempted, c.why)
			}
		})
	}
}
