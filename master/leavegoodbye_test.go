package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// TestAgentLeaveReportInGoodbye: a task that ended before its agent
// built the goodbye sync reports in that very sync, whose leave the
// master applies after its reports; its end reads as its agent's stop
// all the same (trial 2026-11-29d D15's rare case: it read "preempted:
// ended by SIGTERM"), whether the sync is the final one (nothing else
// runs) or other tasks still checkpoint.
func TestAgentLeaveReportInGoodbye(t *testing.T) {
	for _, final := range []bool{true, false} {
		name := "final at once"
		if !final {
			name = "another task still runs"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			id := h.submit(jobSpec("train", 1, `, "preemptible": true`))
			other := int64(0)
			if !final {
				other = h.submit(jobSpec("other", 1, `, "preemptible": true`))
			}
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s, want running", got)
			}
			a.Leave()
			if !a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0) {
				t.Fatal("the agent does not run the task")
			}
			h.sync(a) // the goodbye: the exit report, then Leaving
			if n := h.node("n1"); final && n.State != string(store.NodeLeft) || !final && !n.Leaving {
				t.Fatalf("node %s (leaving %v) after the goodbye, want left when final, else leaving", n.State, n.Leaving)
			}
			att := h.job(id).TaskList[0].Attempts[0]
			if !strings.Contains(att.Reason, "node n1's agent stopped") || strings.HasPrefix(att.Reason, "preempted") {
				t.Fatalf("the attempt's reason %q, want it to say that node n1's agent stopped", att.Reason)
			}
			checkAgentStoppedEvent(t, h, id)
			if !final && h.taskState(other, 0) != store.TaskRunning {
				t.Fatalf("the other task %s, want running still", h.taskState(other, 0))
			}
		})
	}
}
