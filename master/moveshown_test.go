package master

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestMoveShown: while a consolidation's moves checkpoint, the job whose
// tasks move shows as moving (allot jobs, job show, the dashboard), its
// reason naming the task, the node it moves to, the job it makes room
// for and since when, and those tasks moving to that node, where they
// read preempting; the stored states stay running and preempting. A
// master restarted meanwhile shows the same. Once the moves landed the
// job reads running again.
func TestMoveShown(t *testing.T) {
	for _, tc := range []struct {
		name    string
		restart bool
	}{
		{name: "live"},
		{name: "after a master restart", restart: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			a1, a2, trials := fragment(t, h)
			a1.HoldPreempt, a2.HoldPreempt = true, true
			whole := h.submit(jobSpec("whole", 8, ""))
			// The moves at a time between seconds: the views say it at
			// the wall clock's precision (replacedAt), not to the second
			// as the tasks' lifecycle.Replacement's Since keeps it, live
			// and after a restart alike.
			h.clock.Advance(1500 * time.Millisecond)
			planned := h.clock.Now()
			h.step()
			if tc.restart {
				h.start()
				for _, a := range []*mastertest.Agent{a1, a2} {
					a.Master = h.srv.URL
					if _, err := a.Register(h.ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			j := h.job(trials)
			if j.State != "running" || j.ShownState() != api.JobStateMoving || j.Moving == nil || j.Moving.Tasks != 2 ||
				j.Moving.ForJob != whole || j.Resizing != nil {
				t.Fatalf("experiment while two trials move: state %s shown %s, moving %+v; want running shown moving, 2 tasks for job %d",
					j.State, j.ShownState(), j.Moving, whole)
			}
			from, to := j.Moving.From[0], j.Moving.To[0]
			if from == to || !j.Moving.Since.Equal(planned) {
				t.Fatalf("moving %+v: want from one node to the other, since the plan, %s", j.Moving, planned)
			}
			reason := "moving task " + strconv.Itoa(j.Moving.Task) + " (of 2 being moved) to " + to +
				" to make room for job " + strconv.FormatInt(whole, 10) + "; checkpointing since " + msgTime(j.Moving.Since)
			checkSays(t, "reason", j.Reason, []string{reason}, nil)
			var moving []int
			for _, task := range j.TaskList {
				if task.ShownState() != api.JobStateMoving {
					continue
				}
				moving = append(moving, task.Index)
				if task.State != "preempting" || task.Move == nil || !slices.Equal(task.Move.To, []string{to}) ||
					slices.Equal(task.Move.From, task.Move.To) {
					t.Errorf("task %d while moved: %s, move %+v; want stored preempting, moving to %s", task.Index, task.State, task.Move, to)
				}
			}
			if len(moving) != 2 || moving[0] != j.Moving.Task {
				t.Fatalf("tasks shown moving %v, want two, the first %d", moving, j.Moving.Task)
			}
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
				t.Fatalf("list: %d", code)
			}
			i := slices.IndexFunc(list, func(l api.Job) bool { return l.ID == trials })
			if i < 0 || list[i].ShownState() != api.JobStateMoving || list[i].Reason != j.Reason {
				t.Fatalf("listed %+v, want the experiment moving, with the reason %q", list, j.Reason)
			}
			h.sync(a1, a2) // the preempt commands reach the agents, which checkpoint
			for _, a := range []*mastertest.Agent{a1, a2} {
				for _, c := range a.Commands() {
					if c.Type == "preempt" {
						a.Exit(c.Task, agent.OutcomePreempted, 0)
					}
				}
			}
			h.sync(a1, a2, a1, a2)
			h.step()
			h.sync(a1, a2, a1, a2)
			if j := h.job(trials); j.Moving != nil || j.ShownState() != "running" || strings.Contains(j.Reason, "moving") {
				t.Fatalf("experiment once moved: shown %s, moving %+v, reason %q; want running", j.ShownState(), j.Moving, j.Reason)
			}
		})
	}
}

// TestMovingReason: a moving job's reason names the task in a job of
// several, how many move, where to (a gang's nodes too), for which job
// and since when, each only where known.
func TestMovingReason(t *testing.T) {
	since := time.Date(2026, 11, 28, 1, 49, 49, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		m     api.Moving
		tasks int
		want  string
	}{
		{name: "a single task", m: api.Moving{Tasks: 1, To: []string{"node-b"}, ForJob: 16, Since: since}, tasks: 1,
			want: "moving to node-b to make room for job 16; checkpointing since 2026-11-28 01:49:49 UTC"},
		{name: "one of several", m: api.Moving{Task: 2, Tasks: 1, To: []string{"node-b"}, ForJob: 16, Since: since}, tasks: 4,
			want: "moving task 2 to node-b to make room for job 16; checkpointing since 2026-11-28 01:49:49 UTC"},
		{name: "two of several", m: api.Moving{Task: 1, Tasks: 2, To: []string{"node-b"}, Since: since}, tasks: 4,
			want: "moving task 1 (of 2 being moved) to node-b; checkpointing since 2026-11-28 01:49:49 UTC"},
		{name: "a gang", m: api.Moving{Tasks: 1, To: []string{"node-b", "node-c", "node-d"}}, tasks: 1,
			want: "moving to node-b, node-c and node-d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := movingReason(&tc.m, tc.tasks); got != tc.want {
				t.Errorf("movingReason = %q, want %q", got, tc.want)
			}
		})
	}
}
