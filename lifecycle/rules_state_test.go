package lifecycle

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
)

func TestEndedJob(t *testing.T) {
	for _, c := range []struct {
		name                  string
		tasks, failed, killed int
		experiment            bool
		want                  JobState
	}{
		{"every task completed", 3, 0, 0, false, JobCompleted},
		{"one killed", 3, 0, 1, false, JobKilled},
		{"one failed", 3, 1, 0, false, JobFailed},
		{"failed before killed", 3, 1, 2, false, JobFailed},
		{"experiment, every trial completed", 3, 0, 0, true, JobCompleted},
		{"experiment, one trial failed, the others completed", 3, 1, 0, true, JobCompleted},
		{"experiment, one trial completed", 3, 1, 1, true, JobCompleted},
		{"experiment, every trial failed", 3, 3, 0, true, JobFailed},
		{"experiment, none completed, failed before killed", 3, 1, 2, true, JobFailed},
		{"experiment, every trial killed", 2, 0, 2, true, JobKilled},
		{"experiment of one trial that failed", 1, 1, 0, true, JobFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := EndedJob(c.tasks, c.failed, c.killed, c.experiment); got != c.want {
				t.Errorf("EndedJob(%d, %d, %d, %t) = %s, want %s", c.tasks, c.failed, c.killed, c.experiment, got, c.want)
			}
		})
	}
}

func TestLiveJob(t *testing.T) {
	for _, c := range []struct {
		name   string
		active int
		want   JobState
	}{
		{"no task holds slots", 0, JobQueued},
		{"one does", 1, JobRunning},
		{"several do", 3, JobRunning},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := LiveJob(c.active); got != c.want {
				t.Errorf("LiveJob(%d) = %s, want %s", c.active, got, c.want)
			}
		})
	}
}

func TestPastLimit(t *testing.T) {
	for _, c := range []struct {
		name          string
		ranFor, limit time.Duration
		want          bool
	}{
		{"no limit", time.Hour, 0, false},
		{"before it", 59 * time.Second, time.Minute, false},
		{"at it", time.Minute, time.Minute, true},
		{"after it", time.Minute + time.Nanosecond, time.Minute, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PastLimit(c.ranFor, c.limit); got != c.want {
				t.Errorf("PastLimit(%s, %s) = %v, want %v", c.ranFor, c.limit, got, c.want)
			}
		})
	}
}

// TestDueIsPastLimit: the end Task.Due promises is its time limit
// exactly when the attempt is past it (PastLimit, the master's check) at
// a second at which it still runs, and then at the first such second.
func TestDueIsPastLimit(t *testing.T) {
	for _, c := range []struct {
		name                     string
		start, from, work, limit int64
	}{
		{"no limit", 0, 0, 10, 0},
		{"the work first", 0, 0, 10, 20},
		{"the work ends at the limit", 0, 0, 10, 10},
		{"the limit first", 0, 0, 10, 9},
		{"resumed after a move", 0, 5, 10, 12},
		{"the limit passed while it moved", 0, 15, 10, 12},
		{"unbounded", 3, 3, Unbounded, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			task := Task{Attempt: Attempt{Start: c.start, From: c.from}, Work: c.work}
			due, limited := task.Due(Shape{Limit: c.limit})
			done := c.from + c.work
			if c.work == Unbounded {
				done = c.from + 1000
			}
			first := int64(-1)
			for x := c.from; x < done; x++ {
				if PastLimit(x-c.start, c.limit) {
					first = x
					break
				}
			}
			if limited != (first >= 0) || limited && due != first {
				t.Errorf("Due = %d, %v; the first second past the limit is %d", due, limited, first)
			}
		})
	}
}

func TestLostRequeues(t *testing.T) {
	for _, c := range []struct {
		name             string
		preemptible, ran bool
		want             bool
	}{
		{"preemptible, ran", true, true, true},
		{"preemptible, never ran", true, false, true},
		{"not preemptible, never ran", false, false, true},
		{"not preemptible, ran: must not run twice", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := LostRequeues(c.preemptible, c.ran); got != c.want {
				t.Errorf("LostRequeues(%v, %v) = %v, want %v", c.preemptible, c.ran, got, c.want)
			}
		})
	}
}

// TestExitRequeues: the exit actions, and Job.Checkpointed, which the
// simulator ends a preemption by, following them: the task is preempted
// again and again until it fails.
func TestExitRequeues(t *testing.T) {
	for _, c := range []struct {
		name          string
		failOnPreempt bool
		maxRetries    int32
		fails         int32 // the preemption that fails the task; 0: none of the first ten
	}{
		{"reschedule, no cap", false, 0, 0},
		{"on_preempt fail: the first", true, 0, 1},
		{"on_preempt fail over a cap", true, 3, 1},
		{"max_retries 1: the second", false, 1, 2},
		{"max_retries 3: the fourth", false, 3, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			for retries := int32(0); retries < 10; retries++ {
				want := c.fails == 0 || retries+1 < c.fails
				if got := ExitRequeues(c.failOnPreempt, c.maxRetries, retries); got != want {
					t.Errorf("ExitRequeues(%v, %d, %d) = %v, want %v", c.failOnPreempt, c.maxRetries, retries, got, want)
				}
			}
			var ts Tasks
			j := NewJob(Submission{Tasks: 1, Fresh: 100, FailOnPreempt: c.failOnPreempt, MaxRetries: int(c.maxRetries),
				Project: -1, Account: -1}, nil)
			nodes := []sched.NodeSlots{{Node: 0, Slots: 1}}
			for n := int32(1); n <= 10; n++ {
				ti := j.Launch(&ts, 0, nodes, false, int64(n))
				j.Preempt(&ts, ti, int64(n))
				j.Checkpointed(&ts, ti)
				if failed := j.Failed == 1; failed != (n == c.fails) {
					t.Fatalf("preemption %d: failed %v, want the task to fail at preemption %d", n, failed, c.fails)
				}
				if j.Failed == 1 {
					return
				}
			}
		})
	}
}

func TestKillTo(t *testing.T) {
	for _, c := range []struct {
		from TaskState
		to   TaskState
		ok   bool
	}{
		{TaskQueued, TaskKilled, true},
		{TaskPreempted, TaskKilled, true},
		{TaskStarting, TaskKilling, true},
		{TaskRunning, TaskKilling, true},
		{TaskPreempting, TaskKilling, true},
		{TaskKilling, TaskKilling, false},
		{TaskCompleted, TaskCompleted, false},
		{TaskFailed, TaskFailed, false},
		{TaskKilled, TaskKilled, false},
	} {
		t.Run(string(c.from), func(t *testing.T) {
			if to, ok := KillTo(c.from); to != c.to || ok != c.ok {
				t.Errorf("KillTo(%s) = %s, %v, want %s, %v", c.from, to, ok, c.to, c.ok)
			}
		})
	}
}

func TestClassRules(t *testing.T) {
	for _, c := range []struct {
		name                    string
		low, outside, quotaPool bool
		preemptible, borrows    bool
	}{
		{"LOW in a quota pool", true, false, true, true, true},
		{"LOW elsewhere", true, false, false, true, false},
		{"outside LOW, preemptible", false, true, true, true, false},
		{"outside LOW, not preemptible", false, false, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PreemptibleIn(c.low, c.outside); got != c.preemptible {
				t.Errorf("PreemptibleIn = %v, want %v", got, c.preemptible)
			}
			if got := Borrows(c.low, c.quotaPool); got != c.borrows {
				t.Errorf("Borrows = %v, want %v", got, c.borrows)
			}
		})
	}
}
