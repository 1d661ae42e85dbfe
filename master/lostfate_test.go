package master

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// TestLostNoteMatchesOutcome: the note of a task held on a lost node says
// what then happens to it, its job's exit actions and the task's requeues
// included: the task ends as the note said (requeued, or failed, by the
// exit actions the note names), at the time it said. A held task is one
// of a job that is not preemptible; its job is made preemptible (moved
// to LOW) while it is held, so that its loss requeues it unless its exit
// actions fail it.
func TestLostNoteMatchesOutcome(t *testing.T) {
	for _, c := range []struct {
		name     string
		pool     string // the pool's own fields
		requeued bool   // the task is lost and requeued once before
		low      bool   // the job is moved to LOW while held
		note     string // what the task's note says becomes of it
	}{
		{"held within grace", "", false, false, "fails at"},
		{"requeued", "", false, true, "is requeued at the master's next check"},
		{"fails: on_preempt fail", ", on_preempt: fail", false, true, "fails (on_preempt: fail) at the master's next check"},
		{"max_retries 1 not reached", ", max_retries: 1", false, true, "is requeued at the master's next check"},
		{"fails: max_retries 1 exhausted", ", max_retries: 1", true, true, "fails (max_retries 1, requeued 1 time already) at the master's next check"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools: [{name: default, policy: priority, preemption: true"+c.pool+"}]\n")))
			a := h.agent("n1", 2)
			prio := 40 // NORMAL: not preemptible, so held through the loss
			if c.requeued {
				prio = 80
			}
			id := h.submit(jobSpec("train", 1, fmt.Sprintf(`, "priority": %d`, prio)))
			h.step()
			h.sync(a, a)
			if c.requeued {
				loseNode(t, h)
				if got := h.taskState(id, 0); got != store.TaskQueued {
					t.Fatalf("preemptible task on the lost node %s, want queued", got)
				}
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
				// The lost attempt, which the agent still ran, is asked
				// to checkpoint: the task starts again once a sync no
				// longer lists it (stray.go).
				h.sync(a)
				h.step()
				h.sync(a, a)
				setPriority(t, h, id, 40)
			}
			loseNode(t, h)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task on the lost node %s, want held running", got)
			}
			if c.low {
				setPriority(t, h, id, 80)
			}
			j := h.job(id)
			note := j.TaskList[0].Reason
			var x api.Explanation
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if !strings.Contains(note, "the task "+c.note) || j.Reason != note || x.NodeLost != note {
				t.Fatalf("notes: task %q, job %q, explain %q; want the task's to say %q", note, j.Reason, x.NodeLost, c.note)
			}
			if !c.low {
				h.clock.Advance(config.DefaultLostNodeGrace)
			}
			h.m.Tick(h.ctx)
			checkNoteOutcome(t, note, h.job(id).TaskList[0])
		})
	}
}

// notedFate reads what a held task's note says becomes of it.
var notedFate = regexp.MustCompile(`the task (is requeued|fails)(?: \(([^)]*)\))?`)

// checkNoteOutcome checks that task ended as note said it would.
func checkNoteOutcome(t *testing.T, note string, task api.Task) {
	t.Helper()
	m := notedFate.FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("note %q says no fate", note)
	}
	want, why := "queued", ""
	if m[1] == "fails" {
		want = "failed"
		why = m[2]
		if strings.HasPrefix(why, "max_retries") {
			why, _, _ = strings.Cut(why, ",")
		}
	}
	if task.State != want || !strings.Contains(task.Reason, why) {
		t.Fatalf("note %q, but the task ended %s: %q", note, task.State, task.Reason)
	}
}

// loseNode lets the agents' timeout pass and the master find their nodes
// lost.
func loseNode(t *testing.T, h *harness) {
	t.Helper()
	h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
	h.m.Tick(h.ctx)
	if h.m.nodes["n1"].up() {
		t.Fatal("n1 not lost after the agent timeout")
	}
}

// setPriority changes job id's priority.
func setPriority(t *testing.T, h *harness, id int64, prio int) {
	t.Helper()
	if code := h.do("PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), fmt.Sprintf(`{"priority": %d}`, prio), nil); code != 200 {
		t.Fatalf("priority %d: %d", prio, code)
	}
}

// TestRegisterLogsReturnAndKills: an agent that registers again after its
// node was lost is logged as back from the loss, with the attempts it
// still runs that the master ended meanwhile and now kills; a first
// registration says neither.
func TestRegisterLogsReturnAndKills(t *testing.T) {
	logs := &lockedBuffer{}
	h := newHarness(t, withConfig(mustConfig(t, "pools: [{name: default, policy: priority, preemption: true}]\n")),
		func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	a := h.agent("n1", 2)
	id := h.submit(jobSpec("train", 1, `, "priority": 80`)) // LOW: requeued when its node is lost
	h.step()
	h.sync(a, a)
	loseNode(t, h)
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("preemptible task on the lost node %s, want queued", got)
	}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, `msg="agent registered"`) {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	cases := []struct {
		name     string
		has, not []string
	}{
		{"first registration", nil, []string{"was=", "stopping="}},
		{"back from a loss", []string{"was=lost", "stopping=1"}, nil},
	}
	if len(lines) != len(cases) {
		t.Fatalf("%d agent registered lines, want %d:\n%s", len(lines), len(cases), logs.String())
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, w := range c.has {
				if !strings.Contains(lines[i], w) {
					t.Errorf("%q lacks %q", lines[i], w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(lines[i], w) {
					t.Errorf("%q has %q", lines[i], w)
				}
			}
		})
	}
}
