package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// checkExplainAgentStopped checks that explain lists job id's task 0
// attempt 1, which its node's agent stopped, apart from the
// preemptions, and that the summary counts it as no preemption.
func checkExplainAgentStopped(t *testing.T, h *harness, id int64) {
	t.Helper()
	var x api.Explanation
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != 200 {
		t.Fatalf("explain: %d", code)
	}
	if len(x.Preempted) != 0 || len(x.Preemptions) != 0 {
		t.Fatalf("preempted %+v, preemptions %q: want none, its agent stopped it", x.Preempted, x.Preemptions)
	}
	if len(x.AgentStopped) != 1 || x.AgentStopped[0].Task != 0 || x.AgentStopped[0].Attempt != 1 ||
		!strings.HasPrefix(x.AgentStopped[0].Why, "node n1's agent stopped") {
		t.Fatalf("agent_stopped %+v, want task 0 attempt 1, node n1's agent stopped", x.AgentStopped)
	}
	var job api.Job
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", id), nil, &job); code != 200 {
		t.Fatalf("job: %d", code)
	}
	if a := job.TaskList[0].Attempts[0]; !a.AgentStopped || a.PreemptedBy != nil || a.Fenced {
		t.Fatalf("attempt 1 %+v: want agent_stopped, no preempted_by, not fenced", a)
	}
	if strings.Contains(x.Summary, "preempted") ||
		!strings.Contains(x.Summary, "Its task 0 was stopped once for a checkpoint as its node's agent stopped") {
		t.Fatalf("summary %q, want the agent's stop and no preemption", x.Summary)
	}
}

// TestAgentStoppedAttempt: which preempted attempts explain lists as
// stopped by their node's agent: a gang's by its preempting event's
// cause, a one-node task's by its end reason; a pass's preemption, and
// one a pass asked first, stay preemptions.
func TestAgentStoppedAttempt(t *testing.T) {
	lone := store.Attempt{EndState: store.AttemptPreempted, Reason: agentStoppedEnd("n1") + "; ended by SIGTERM"}
	gang := store.Attempt{EndState: store.AttemptPreempted, Reason: agentStoppedEnd("n1")}
	tests := []struct {
		name    string
		a       store.Attempt
		d       store.Event
		decided bool
		want    bool
	}{
		{"one-node task", lone, store.Event{}, false, true},
		{"gang", gang, store.Event{Cause: store.CauseAgentStopped}, true, true},
		{"a pass's preemption", store.Attempt{EndState: store.AttemptPreempted, Reason: "preempted: ended by SIGTERM"},
			store.Event{Cause: store.CausePriority}, true, false},
		{"asked by a pass first", lone, store.Event{Cause: store.CausePriority}, true, false},
		{"a task's own words alike", store.Attempt{EndState: store.AttemptPreempted,
			Reason: "preempted: stopped for a checkpoint: node n1's agent stopped"}, store.Event{}, false, false},
		{"lost, not preempted", store.Attempt{EndState: store.AttemptLost, Reason: lone.Reason}, store.Event{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := agentStoppedAttempt(tt.a, tt.d, tt.decided); got != tt.want {
				t.Fatalf("agentStoppedAttempt = %v, want %v", got, tt.want)
			}
		})
	}
}
