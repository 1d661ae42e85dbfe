package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// TestPreemptShown: while a job's task checkpoints after a preemption,
// the job shows as preempting (allot jobs, job show, the dashboard), its
// reason naming why, since when and the deadline (the request plus the
// pool's grace, when the kill comes); the job it was preempted for is
// estimated to start by that deadline (basis checkpoint), never before
// now, and explain's table gives the victim's deadline rather than its
// time limit (trial F16). The stored states stay running and preempting.
func TestPreemptShown(t *testing.T) {
	const pools = "pools:\n  - {name: default, policy: priority, preemption: true, grace: 20s}\n"
	for _, tc := range []struct {
		name  string
		after time.Duration // the clock's advance after the preemption
		// want is the taker's estimate from the preemption; 0 for now.
		want time.Duration
	}{
		{name: "within the grace", after: 5 * time.Second, want: 20 * time.Second},
		{name: "grace over, end not yet confirmed", after: 25 * time.Second, want: 25 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, pools)))
			n1 := h.agent("n1", 4)
			n1.HoldPreempt = true
			victim := h.submit(jobSpec("victim", 4, `, "time_limit": 3600, "priority": 80`))
			h.step()
			h.sync(n1, n1)
			preemptAt := h.clock.Now()
			taker := h.submit(jobSpec("taker", 4, `, "priority": 10`))
			h.step()
			h.sync(n1)
			h.clock.Advance(tc.after)
			h.step()
			h.m.planner.refreshETA()
			deadline := preemptAt.Add(20 * time.Second)

			v := h.job(victim)
			if v.State != "running" || v.ShownState() != api.JobStatePreempting || v.Preempting == nil ||
				!v.Preempting.Since.Equal(preemptAt) || !v.Preempting.Deadline.Equal(deadline) || v.Preempting.Tasks != 1 {
				t.Fatalf("victim: state %s shown %s, preempting %+v; want running shown preempting since %v, deadline %v",
					v.State, v.ShownState(), v.Preempting, preemptAt, deadline)
			}
			checkSays(t, "victim's reason", v.Reason, []string{"preempted for job " + strconv.FormatInt(taker, 10),
				"checkpointing since " + msgTime(preemptAt), "killed at " + deadline.Format("15:04:05") + " UTC"}, []string{"a task started"})
			if v.TaskList[0].ShownState() != "preempting" {
				t.Errorf("victim's task shown %s, want preempting", v.TaskList[0].ShownState())
			}
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
				t.Fatalf("list: %d", code)
			}
			for _, l := range list {
				if l.ID == victim && (l.ShownState() != api.JobStatePreempting || l.Reason != v.Reason) {
					t.Errorf("listed victim shown %s, reason %q; want preempting, %q", l.ShownState(), l.Reason, v.Reason)
				}
			}

			p := h.job(taker).Pending
			want := preemptAt.Add(tc.want)
			if p == nil || p.EstimatedStart == nil || !p.EstimatedStart.Equal(want) || p.EstimateBasis != "checkpoint" ||
				p.EstimatedStartEarliest != nil {
				t.Fatalf("taker's pending %+v, want an estimate %v, basis checkpoint", p, want)
			}
			if p.AsOf == nil || p.EstimatedStart.Before(*p.AsOf) {
				t.Errorf("taker's estimate %v before its as_of %v", p.EstimatedStart, p.AsOf)
			}

			var vx api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(victim, 10)+"/explain", nil, &vx); code != 200 {
				t.Fatalf("explain the victim: %d", code)
			}
			if vx.Preempting == nil || !vx.Preempting.Deadline.Equal(deadline) {
				t.Errorf("victim's explanation preempting %+v, want the deadline %v", vx.Preempting, deadline)
			}
			checkSays(t, "victim's summary", vx.Summary, []string{"It is running. It is being preempted: preempted for job " +
				strconv.FormatInt(taker, 10)}, nil)

			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(taker, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.WouldStart == nil || len(x.WouldStart.MustEnd) != 1 {
				t.Fatalf("counterfactual %+v, want the victim in must_end", x.WouldStart)
			}
			r := x.WouldStart.MustEnd[0]
			if r.ID != victim || r.Preempt != api.PreemptUnderWay || r.CheckpointBy == nil || !r.CheckpointBy.Equal(deadline) {
				t.Errorf("must_end %+v, want job %d under way, checkpoint by %v", r, victim, deadline)
			}
		})
	}
}

// TestPreemptingReason: a preempting job's reason names the task in a
// job of several and how many are preempted, why, since when and the
// deadline.
func TestPreemptingReason(t *testing.T) {
	since := time.Date(2026, 11, 28, 9, 10, 37, 0, time.UTC)
	p := func(task, tasks int, why string) api.Preempting {
		return api.Preempting{Task: task, Tasks: tasks, Since: since, Deadline: since.Add(20 * time.Second), Why: why}
	}
	const tail = "; checkpointing since 2026-11-28 09:10:37 UTC, killed at 09:10:57 UTC if not stopped by then"
	for _, tc := range []struct {
		name  string
		p     api.Preempting
		tasks int
		want  string
	}{
		{name: "a single task", p: p(0, 1, "preempted for job 17 (quota reclaim)"), tasks: 1,
			want: "preempted for job 17 (quota reclaim)" + tail},
		{name: "one of several", p: p(2, 1, "preempted for job 17"), tasks: 4,
			want: "preempting task 2: preempted for job 17" + tail},
		{name: "two of several", p: p(1, 2, "preempted for job 17"), tasks: 4,
			want: "preempting task 1 (of 2 being preempted): preempted for job 17" + tail},
		{name: "no reason stored", p: p(0, 1, ""), tasks: 1, want: "preempted" + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := preemptingReason(&tc.p, tc.tasks); got != tc.want {
				t.Errorf("preemptingReason = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPreemptingSentence: explain's sentence for a job being preempted
// names the task in a job of several, and how many.
func TestPreemptingSentence(t *testing.T) {
	since := time.Date(2026, 11, 28, 9, 10, 37, 0, time.UTC)
	const tail = "preempted for job 17; checkpointing since 2026-11-28 09:10:37 UTC, killed at 09:10:57 UTC if not stopped by then."
	for _, tc := range []struct {
		name        string
		task, tasks int
		of          int
		want        string
	}{
		{name: "a single task", tasks: 1, of: 1, want: "It is being preempted: " + tail},
		{name: "one of several", task: 2, tasks: 1, of: 4, want: "Its task 2 is being preempted: " + tail},
		{name: "two of several", task: 1, tasks: 2, of: 4, want: "2 of its tasks are being preempted; task 1: " + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := api.Preempting{Task: tc.task, Tasks: tc.tasks, Since: since, Deadline: since.Add(20 * time.Second), Why: "preempted for job 17"}
			if got := preemptingSentence(&p, tc.of); got != tc.want {
				t.Errorf("preemptingSentence = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckpointBy: a job being preempted frees its slots among the
// allocations waited for by the last of its deadlines; none where one is
// not known, and other jobs' allocations do not count.
func TestCheckpointBy(t *testing.T) {
	alloc := func(job int, freeBy int64) sched.Alloc {
		return sched.Alloc{Job: job, Preempting: true, FreeBy: freeBy}
	}
	for _, tc := range []struct {
		name   string
		allocs []sched.Alloc
		want   int64 // 0 for none
	}{
		{name: "one task", allocs: []sched.Alloc{alloc(1, 1020)}, want: 1020},
		{name: "two tasks: the later", allocs: []sched.Alloc{alloc(1, 1030), alloc(1, 1020)}, want: 1030},
		{name: "one deadline not known", allocs: []sched.Alloc{alloc(1, 1020), alloc(1, 0)}},
		{name: "another job's later deadline", allocs: []sched.Alloc{alloc(1, 1020), alloc(2, 1090)}, want: 1020},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &sched.Snapshot{Allocs: tc.allocs}
			ends := make([]int, len(tc.allocs))
			for i := range ends {
				ends[i] = i
			}
			got := checkpointBy(s, 1, ends)
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("checkpointBy = %v, want none", got)
			case tc.want != 0 && (got == nil || got.Unix() != tc.want):
				t.Errorf("checkpointBy = %v, want %d", got, tc.want)
			}
		})
	}
}
