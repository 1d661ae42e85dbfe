package master

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestDonePartsShown: a gang's part that completed while the other part
// runs is shown so on the task (GET /jobs/{id}, which allot job show
// prints), not "every part runs", and its attempt still holds every GPU,
// as the master holds them until the last part exits (trial o F18).
func TestDonePartsShown(t *testing.T) {
	tests := []struct {
		name    string
		exit    []string // the nodes whose parts complete, in order
		state   string   // the job's
		reason  string   // the task's
		holding int
	}{
		{name: "every part runs", state: "running", reason: "every part runs", holding: 4},
		{name: "one part completed", exit: []string{"n2"}, state: "running", holding: 4,
			reason: "the part on n2 completed (exit 0) at 2026-05-01 12:01:00 UTC; waiting for the part on n1 (the attempt holds its GPUs until every part has exited)"},
		{name: "every part completed", exit: []string{"n2", "n1"}, state: "completed", reason: "completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a, b := h.agent("n1", 2), h.agent("n2", 2)
			agents := map[string]interface {
				Exit(agent.TaskID, agent.Outcome, int) bool
			}{"n1": a, "n2": b}
			id := h.submit(jobSpec("gang", 4, `, "preemptible": false`))
			h.step()
			h.sync(a, b)
			h.sync(a, b)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("gang %s, want running on both nodes", got)
			}
			h.clock.Advance(time.Minute)
			for _, n := range tt.exit {
				agents[n].Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
				h.sync(a, b)
			}
			j := h.job(id)
			if j.State != tt.state || j.Holding != tt.holding {
				t.Fatalf("job %s holding %d, want %s holding %d", j.State, j.Holding, tt.state, tt.holding)
			}
			if got := j.TaskList[0].Reason; got != tt.reason {
				t.Fatalf("task reason %q\nwant %q", got, tt.reason)
			}
		})
	}
}

// TestOneNodeRunningReason (trial 2026-11-29d D3): a one-node attempt
// that runs reads "running", not the gang's "every part runs", on the
// task and in its event; a gang's keeps "every part runs"
// (TestDonePartsShown).
func TestOneNodeRunningReason(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	id := h.submit(jobSpec("solo", 1, ""))
	h.step()
	h.sync(a)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}
	if got := h.job(id).TaskList[0].Reason; got != reasonRunning {
		t.Errorf("task reason %q, want %q", got, reasonRunning)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.TaskRunning)})
	if err != nil {
		t.Fatal(err)
	}
	evs = slices.DeleteFunc(evs, func(e store.Event) bool { return e.Index < 0 }) // the job's own
	if len(evs) != 1 || evs[0].Reason != reasonRunning {
		t.Errorf("task events to running %+v, want one %q", evs, reasonRunning)
	}
}

// TestWaitingReason: the words for parts completed and parts waited for.
func TestWaitingReason(t *testing.T) {
	at := time.Date(2026, 11, 28, 15, 17, 15, 0, time.UTC)
	tests := []struct {
		name string
		done []donePart
		open []string
		want string
	}{
		{"one and one", []donePart{{node: "r2", at: at}}, []string{"r1"},
			"the part on r2 completed (exit 0) at 2026-11-28 15:17:15 UTC; waiting for the part on r1 (the attempt holds its GPUs until every part has exited)"},
		{"two and two", []donePart{{node: "r4", at: at}, {node: "r2", at: at.Add(-time.Minute)}}, []string{"r3", "r1"},
			"the parts on r2, r4 completed (exit 0), the last at 2026-11-28 15:17:15 UTC; waiting for the parts on r1, r3 (the attempt holds its GPUs until every part has exited)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitingReason(tt.done, tt.open); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestExplainCountsLostAttempts: an attempt lost with its node is listed
// in the explanation and counted in its summary, as preemptions are.
func TestExplainCountsLostAttempts(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools: [{name: default, policy: priority, preemption: true}]\n")))
	a := h.agent("n1", 2)
	id := h.submit(jobSpec("train", 1, `, "priority": 80`)) // LOW: preemptible, requeued at the loss
	h.step()
	h.sync(a, a)
	loseNode(t, h)
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("task on the lost node %s, want queued", got)
	}
	var x api.Explanation
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != 200 {
		t.Fatalf("explain: %d", code)
	}
	if len(x.Lost) != 1 || x.Lost[0].Task != 0 || x.Lost[0].Attempt != 1 || !strings.Contains(x.Lost[0].Why, "node n1 lost") {
		t.Fatalf("lost %+v, want task 0 attempt 1 lost with node n1", x.Lost)
	}
	if !strings.Contains(x.Summary, "Its task 0 was lost with its node once.") {
		t.Fatalf("summary %q does not count the lost attempt", x.Summary)
	}
}
