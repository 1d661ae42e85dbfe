package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// TestTaskRecordEnter checks the rules of a change of state that both
// drivers' task records run by Enter: a requeue counted as the task
// enters queued, a move or resize in flight let go of once it leaves
// preempting (not before), a kill under way over once it leaves killing.
func TestTaskRecordEnter(t *testing.T) {
	type want struct {
		requeued, unreserved, stopped bool
		retries                       int32
		replacing, killing, timedOut  bool
	}
	for _, c := range []struct {
		name     string
		from, to lifecycle.TaskState
		reserved bool // a move or resize in flight
		kill     int  // 0: none, 1: a user's kill, 2: the time limit's
		want     want
	}{
		{name: "preempted, requeued", from: lifecycle.TaskPreempted, to: lifecycle.TaskQueued,
			want: want{requeued: true, retries: 1}},
		{name: "lost, requeued", from: lifecycle.TaskRunning, to: lifecycle.TaskQueued,
			want: want{requeued: true, retries: 1}},
		{name: "a landing requeued unplaced", from: lifecycle.TaskPreempting, to: lifecycle.TaskQueued, reserved: true,
			want: want{requeued: true, unreserved: true, retries: 1}},
		{name: "queued again: no change", from: lifecycle.TaskQueued, to: lifecycle.TaskQueued},
		{name: "a move lands", from: lifecycle.TaskPreempting, to: lifecycle.TaskPreempted, reserved: true,
			want: want{unreserved: true}},
		{name: "a move's restart, landed", from: lifecycle.TaskPreempting, to: lifecycle.TaskStarting, reserved: true,
			want: want{unreserved: true}},
		{name: "still preempting", from: lifecycle.TaskPreempting, to: lifecycle.TaskPreempting, reserved: true,
			want: want{replacing: true}},
		{name: "a move killed", from: lifecycle.TaskPreempting, to: lifecycle.TaskKilling, reserved: true,
			want: want{unreserved: true}},
		// The Cluster's re-placed record stays running (graph.go): its
		// landing lets go of it, Tasks.Resume, not a change of state.
		{name: "re-placed and running: kept", from: lifecycle.TaskRunning, to: lifecycle.TaskCompleted, reserved: true,
			want: want{replacing: true}},
		{name: "a kill ends", from: lifecycle.TaskKilling, to: lifecycle.TaskKilled, kill: 1,
			want: want{stopped: true}},
		{name: "a time limit's kill ends", from: lifecycle.TaskKilling, to: lifecycle.TaskKilled, kill: 2,
			want: want{stopped: true, timedOut: true}},
		{name: "a limit's kill outrun", from: lifecycle.TaskKilling, to: lifecycle.TaskCompleted, kill: 2,
			want: want{stopped: true}},
		{name: "still killing", from: lifecycle.TaskKilling, to: lifecycle.TaskKilling, kill: 1,
			want: want{killing: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := lifecycle.TaskRecord{State: c.from}
			if c.reserved {
				r.Reserve(lifecycle.Move, 10, 0, "")
			}
			switch c.kill {
			case 1:
				r.Stop.Kill(lifecycle.TaskKilled, "")
			case 2:
				r.LimitKill("")
			}
			e := r.Enter(c.to)
			got := want{requeued: e.Requeued, unreserved: e.Unreserved, stopped: c.kill != 0 && !r.Killing(), retries: r.Retries,
				replacing: r.Replacing(), killing: r.Killing(), timedOut: r.TimedOut()}
			if got != c.want || e.From != c.from || r.State != c.to {
				t.Errorf("%s → %s: entered %+v (from %s), record %s with %+v; want from %s, %+v",
					c.from, c.to, e, e.From, r.State, got, c.from, c.want)
			}
		})
	}
}
