package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestRequeuedSentence: explain's account of a job's requeues, one
// sentence however many: one request reads as before; several are
// counted and listed by request, each with the attempts it stopped. What
// the attempts left in their checkpoint directories, by their agents,
// words their return; unknown, it reads as before any agent said.
func TestRequeuedSentence(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	req := func(task, attempt int, min int, by string) api.Preemption {
		return api.Preemption{Task: task, Attempt: attempt, At: t0.Add(time.Duration(min) * time.Minute),
			Why: requeueReason(by, t0.Add(time.Duration(min)*time.Minute-30*time.Second))}
	}
	type tc struct {
		name string
		rs   []api.Preemption
		want string
		ckpt store.Checkpoint
	}
	for _, c := range []tc{
		{"none", nil, "", store.CheckpointUnknown},
		{"once", []api.Preemption{req(0, 1, 1, "ana")},
			" Its task 0 was requeued by ana at 2026-05-01 12:00 UTC (attempt 1), and resumes from its checkpoint if it wrote one.", ""},
		{"twice", []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 5, "bob")},
			" Its task 0 was requeued twice, each time to resume from its checkpoint if it wrote one: by ana at 2026-05-01 12:00 UTC (attempt 1) " +
				"and by bob at 2026-05-01 12:04 UTC (attempt 2).", ""},
		{"three times, listed by their ends", []api.Preemption{req(0, 3, 9, "ana"), req(0, 1, 1, "ana"), req(0, 2, 5, "bob")},
			" Its task 0 was requeued 3 times, each time to resume from its checkpoint if it wrote one: by ana at 2026-05-01 12:00 UTC (attempt 1), " +
				"by bob at 2026-05-01 12:04 UTC (attempt 2) and by ana at 2026-05-01 12:08 UTC (attempt 3).", ""},
		{"in the same minute, by the same user", []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 1, "ana")},
			" Its task 0 was requeued twice, each time to resume from its checkpoint if it wrote one: by ana at 2026-05-01 12:00 UTC (attempt 1) " +
				"and by ana at 2026-05-01 12:00 UTC (attempt 2).", ""},
		{"two tasks, one request", []api.Preemption{req(0, 1, 1, "ana"), req(1, 2, 1, "ana")},
			" Its tasks were requeued by ana at 2026-05-01 12:00 UTC (task 0 attempt 1 and task 1 attempt 2), and resume from their checkpoints if they wrote them.", ""},
		{"two tasks, two requests", []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 5, "bob"), req(1, 1, 1, "ana")},
			" Its tasks were requeued twice, each time to resume from their checkpoints if they wrote them: by ana at 2026-05-01 12:00 UTC " +
				"(task 0 attempt 1 and task 1 attempt 1) and by bob at 2026-05-01 12:04 UTC (task 0 attempt 2).", ""},
		{"many tasks", []api.Preemption{req(0, 1, 1, "ana"), req(1, 1, 1, "ana"), req(2, 1, 1, "ana"), req(3, 1, 1, "ana")},
			" Its tasks were requeued by ana at 2026-05-01 12:00 UTC (4 tasks), and resume from their checkpoints if they wrote them.", ""},
		{name: "once, checkpointed", rs: []api.Preemption{req(0, 1, 1, "ana")}, ckpt: store.CheckpointWritten,
			want: " Its task 0 was requeued by ana at 2026-05-01 12:00 UTC (attempt 1), and resumes from its checkpoint."},
		{name: "once, no checkpoint", rs: []api.Preemption{req(0, 1, 1, "ana")}, ckpt: store.CheckpointNone,
			want: " Its task 0 was requeued by ana at 2026-05-01 12:00 UTC (attempt 1), and starts over: it wrote no checkpoint."},
		{name: "twice, checkpointed", rs: []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 5, "bob")}, ckpt: store.CheckpointWritten,
			want: " Its task 0 was requeued twice, each time to resume from its checkpoint: by ana at 2026-05-01 12:00 UTC (attempt 1) " +
				"and by bob at 2026-05-01 12:04 UTC (attempt 2)."},
		{name: "twice, no checkpoint", rs: []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 5, "bob")}, ckpt: store.CheckpointNone,
			want: " Its task 0 was requeued twice, each time to start over, as it wrote no checkpoint: by ana at 2026-05-01 12:00 UTC (attempt 1) " +
				"and by bob at 2026-05-01 12:04 UTC (attempt 2)."},
		{name: "two tasks, checkpointed", rs: []api.Preemption{req(0, 1, 1, "ana"), req(1, 2, 1, "ana")}, ckpt: store.CheckpointWritten,
			want: " Its tasks were requeued by ana at 2026-05-01 12:00 UTC (task 0 attempt 1 and task 1 attempt 2), and resume from their checkpoints."},
		{name: "two tasks twice, no checkpoint", rs: []api.Preemption{req(0, 1, 1, "ana"), req(0, 2, 5, "bob"), req(1, 1, 1, "ana")},
			ckpt: store.CheckpointNone,
			want: " Its tasks were requeued twice, each time to start over, as they wrote no checkpoints: by ana at 2026-05-01 12:00 UTC " +
				"(task 0 attempt 1 and task 1 attempt 1) and by bob at 2026-05-01 12:04 UTC (task 0 attempt 2)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := requeuedSentence(c.rs, c.ckpt); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestExplainRequeuedTwice: a job requeued by its owner and then by its
// project's lead reads as one sentence naming both, in order, apart from
// preemptions.
func TestExplainRequeuedTwice(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	a.HoldPreempt = true
	ana := h.as("ana", "default=member")
	lee := h.as("lee", "default=lead")
	id := h.submitAs("ana", jobSpec("train", 2, ""))
	path := fmt.Sprintf("/api/v1/jobs/%d/requeue", id)
	for i, by := range []string{ana, lee} {
		h.step()
		h.sync(a)
		h.sync(a)
		if st := h.taskState(id, 0); st != store.TaskRunning {
			t.Fatalf("task before requeue %d: %s, want running", i+1, st)
		}
		h.clock.Advance(2 * time.Minute)
		if code := h.doAs(by, "POST", path, nil, nil); code != http.StatusOK {
			t.Fatalf("requeue %d: %d", i+1, code)
		}
		h.sync(a)
		a.Exit(tid(id, 0, i+1), agent.OutcomePreempted, 0)
		h.sync(a)
	}
	var x api.Explanation
	if code := h.doAs(ana, "GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != http.StatusOK {
		t.Fatalf("explain: %d", code)
	}
	want := "Its task 0 was requeued twice, each time to resume from its checkpoint if it wrote one: by ana at 2026-05-01 12:02 UTC (attempt 1) " +
		"and by lee at 2026-05-01 12:04 UTC (attempt 2)."
	if !strings.Contains(x.Summary, want) || strings.Count(x.Summary, "requeued") != 1 || len(x.Preempted) != 0 {
		t.Errorf("summary %q (preempted %v); want one sentence: %q", x.Summary, x.Preempted, want)
	}
}
