package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// TestJobRecordSettle checks the rule both drivers settle a job by
// (JobRecord.Settles, Settle): an ended job stays ended, one whose tasks
// all ended ends as EndedJob says, a live one is running while a task
// holds slots and queued while none does; Enter says when it ended.
func TestJobRecordSettle(t *testing.T) {
	for _, c := range []struct {
		name       string
		from       lifecycle.JobState
		experiment bool
		tasks      lifecycle.JobTasks
		want       lifecycle.JobState
		ended      bool
	}{
		{"a task starts", lifecycle.JobQueued, false, lifecycle.JobTasks{Tasks: 2, Active: 1}, lifecycle.JobRunning, false},
		{"none holds slots", lifecycle.JobRunning, false, lifecycle.JobTasks{Tasks: 2, Ended: 1}, lifecycle.JobQueued, false},
		{"still running", lifecycle.JobRunning, false, lifecycle.JobTasks{Tasks: 2, Active: 1, Ended: 1}, lifecycle.JobRunning, false},
		{"every task completed", lifecycle.JobRunning, false, lifecycle.JobTasks{Tasks: 2, Ended: 2}, lifecycle.JobCompleted, true},
		{"a task failed", lifecycle.JobRunning, false, lifecycle.JobTasks{Tasks: 2, Ended: 2, Failed: 1, Killed: 1}, lifecycle.JobFailed, true},
		{"a task killed", lifecycle.JobRunning, false, lifecycle.JobTasks{Tasks: 2, Ended: 2, Killed: 1}, lifecycle.JobKilled, true},
		{"a trial completed", lifecycle.JobRunning, true, lifecycle.JobTasks{Tasks: 3, Ended: 3, Failed: 1, Killed: 1}, lifecycle.JobCompleted, true},
		{"no trial completed", lifecycle.JobRunning, true, lifecycle.JobTasks{Tasks: 2, Ended: 2, Failed: 1, Killed: 1}, lifecycle.JobFailed, true},
		{"no tasks", lifecycle.JobQueued, false, lifecycle.JobTasks{}, lifecycle.JobCompleted, true},
		{"killed stays killed", lifecycle.JobKilled, false, lifecycle.JobTasks{Tasks: 2, Active: 1, Ended: 1}, lifecycle.JobKilled, false},
		{"killed, its tasks ended", lifecycle.JobKilled, false, lifecycle.JobTasks{Tasks: 1, Ended: 1}, lifecycle.JobKilled, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := lifecycle.JobRecord{State: c.from, Experiment: c.experiment}
			if got := r.Settles(c.tasks); got != c.want {
				t.Fatalf("Settles = %s, want %s", got, c.want)
			}
			e := r.Settle(c.tasks)
			if r.State != c.want || e.From != c.from || e.Ended != c.ended {
				t.Errorf("Settle: %s, %+v; want %s, from %s, ended %t", r.State, e, c.want, c.from, c.ended)
			}
		})
	}
}

// TestJobRecordHoldChange checks the hold rule both drivers apply
// (HoldChange): a hold of a held job or a release of one not held
// changes nothing, and a hold of a job a task of which holds slots is
// refused.
func TestJobRecordHoldChange(t *testing.T) {
	for _, c := range []struct {
		name            string
		held, on        bool
		active          int
		change, refused bool
	}{
		{"hold", false, true, 0, true, false},
		{"hold a running job", false, true, 1, false, true},
		{"hold again", true, true, 0, false, false},
		{"release", true, false, 0, true, false},
		{"release again", false, false, 0, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := lifecycle.JobRecord{State: lifecycle.JobQueued, OnHold: c.held}
			if change, refused := r.HoldChange(c.on, c.active); change != c.change || refused != c.refused {
				t.Errorf("HoldChange(%t, %d) = %t, %t; want %t, %t", c.on, c.active, change, refused, c.change, c.refused)
			}
		})
	}
}
