package lifecycle

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestDecide: what each way an attempt ends does to its task, with the
// kill, re-placement, loss and exit-action edges both drivers meet.
func TestDecide(t *testing.T) {
	requeued := Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskQueued}
	exitFailed := Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskFailed, ByExit: true}
	for _, c := range []struct {
		name string
		e    Ending
		want Verdict
	}{
		{"completed", Ending{Kind: EndCompleted}, Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}},
		{"completed, exit actions do not apply", Ending{Kind: EndCompleted, FailOnPreempt: true},
			Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}},
		{"stopped: killed, the task completed", Ending{Kind: EndStopped}, Verdict{Attempt: AttemptKilled, Task: TaskCompleted}},
		{"time limit", Ending{Kind: EndLimited}, Verdict{Attempt: AttemptKilled, Task: TaskKilled}},
		{"failed", Ending{Kind: EndFailed}, Verdict{Attempt: AttemptFailed, Task: TaskFailed}},
		{"failed, preemptible: never requeued", Ending{Kind: EndFailed, Preemptible: true},
			Verdict{Attempt: AttemptFailed, Task: TaskFailed}},
		{"start failed", Ending{Kind: EndStartFailed, Preemptible: true}, Verdict{Attempt: AttemptFailed, Task: StartFailed()}},

		{"preempted: requeued", Ending{Kind: EndPreempted}, requeued},
		{"preempted, on_preempt fail", Ending{Kind: EndPreempted, FailOnPreempt: true}, exitFailed},
		{"preempted, under max_retries", Ending{Kind: EndPreempted, MaxRetries: 2, Retries: 1}, requeued},
		{"preempted, at max_retries", Ending{Kind: EndPreempted, MaxRetries: 2, Retries: 2}, exitFailed},
		{"moved: restarts on its new placement", Ending{Kind: EndPreempted, Replacing: true},
			Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskStarting}},
		{"moved, exit actions do not apply to a restart", Ending{Kind: EndPreempted, Replacing: true, FailOnPreempt: true},
			Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskStarting}},
		{"moved onto a node down: unplaced, requeued", Ending{Kind: EndPreempted, Replacing: true, AnyDown: true},
			Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskQueued, Unplaced: true}},
		{"moved onto a node down, at max_retries", Ending{Kind: EndPreempted, Replacing: true, AnyDown: true, MaxRetries: 1, Retries: 1},
			Verdict{Attempt: AttemptPreempted, Task: TaskPreempted, Then: TaskFailed, ByExit: true, Unplaced: true}},

		{"lost, preemptible: requeued", Ending{Kind: EndLost, Preemptible: true, Ran: true},
			Verdict{Attempt: AttemptLost, Task: TaskQueued}},
		{"lost, ran, not preemptible: must not run twice", Ending{Kind: EndLost, Ran: true},
			Verdict{Attempt: AttemptLost, Task: TaskFailed}},
		{"lost, ran, not preemptible, on_preempt fail: not by exit", Ending{Kind: EndLost, Ran: true, FailOnPreempt: true},
			Verdict{Attempt: AttemptLost, Task: TaskFailed}},
		{"start lost, not preemptible: requeued", Ending{Kind: EndLost}, Verdict{Attempt: AttemptLost, Task: TaskQueued}},
		{"start lost, on_preempt fail", Ending{Kind: EndLost, FailOnPreempt: true},
			Verdict{Attempt: AttemptLost, Task: TaskFailed, ByExit: true}},
		{"lost, preemptible, at max_retries", Ending{Kind: EndLost, Preemptible: true, Ran: true, MaxRetries: 3, Retries: 3},
			Verdict{Attempt: AttemptLost, Task: TaskFailed, ByExit: true}},

		{"killing, the kill reached it", Ending{Kind: EndFailed, Killing: true}, Verdict{Attempt: AttemptKilled, Task: TaskKilled}},
		{"killing, a user's kill outrun: completed", Ending{Kind: EndCompleted, Killing: true},
			Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}},
		{"killing, a time limit's kill outrun: completed", Ending{Kind: EndCompleted, Killing: true, KillTo: TaskKilled},
			Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}},
		{"killing, the time limit's kill ended it", Ending{Kind: EndLimited, Killing: true, KillTo: TaskKilled},
			Verdict{Attempt: AttemptKilled, Task: TaskKilled}},
		{"killing to failed, a part failed", Ending{Kind: EndFailed, Killing: true, KillTo: TaskFailed},
			Verdict{Attempt: AttemptFailed, Task: TaskFailed}},
		{"killing to completed, a searcher's stop outrun: completed", Ending{Kind: EndCompleted, Killing: true, KillTo: TaskCompleted},
			Verdict{Attempt: AttemptCompleted, Task: TaskCompleted}},
		{"killing to completed, a searcher's stop", Ending{Kind: EndPreempted, Killing: true, KillTo: TaskCompleted},
			Verdict{Attempt: AttemptKilled, Task: TaskCompleted}},
		{"killing, preempted: no requeue", Ending{Kind: EndPreempted, Killing: true, Replacing: true},
			Verdict{Attempt: AttemptKilled, Task: TaskKilled}},
		{"killing, lost: killed whatever it was killed to", Ending{Kind: EndLost, Killing: true, KillTo: TaskFailed, Preemptible: true},
			Verdict{Attempt: AttemptLost, Task: TaskKilled}},
		{"killed on no agent's word", Ending{Kind: EndKilled, Killing: true, KillTo: TaskCompleted},
			Verdict{Attempt: AttemptKilled, Task: TaskKilled}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.e.Decide(); got != c.want {
				t.Errorf("%+v.Decide() = %+v, want %+v", c.e, got, c.want)
			}
		})
	}
}

// TestVerdictFinal: the state a verdict leaves a task in, and whether it
// waits again or restarts.
func TestVerdictFinal(t *testing.T) {
	for _, c := range []struct {
		name              string
		v                 Verdict
		final             TaskState
		waits, restarting bool
	}{
		{"completed", Verdict{Task: TaskCompleted}, TaskCompleted, false, false},
		{"lost, requeued", Verdict{Task: TaskQueued}, TaskQueued, true, false},
		{"preempted, requeued", Verdict{Task: TaskPreempted, Then: TaskQueued}, TaskQueued, true, false},
		{"preempted, failed by exit", Verdict{Task: TaskPreempted, Then: TaskFailed, ByExit: true}, TaskFailed, false, false},
		{"moved, restarting", Verdict{Task: TaskPreempted, Then: TaskStarting}, TaskStarting, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.v.Final(); got != c.final {
				t.Errorf("Final() = %s, want %s", got, c.final)
			}
			if got := c.v.Waits(); got != c.waits {
				t.Errorf("Waits() = %v, want %v", got, c.waits)
			}
			if got := c.v.Restarts(); got != c.restarting {
				t.Errorf("Restarts() = %v, want %v", got, c.restarting)
			}
		})
	}
}

// TestJobEnd: the Cluster's job retires a task as the verdict says,
// counting it where Job.Over reads it: a requeued one waits again with
// one more retry, a preempted one staying preempted, a lost one queued.
func TestJobEnd(t *testing.T) {
	for _, c := range []struct {
		name                   string
		v                      Verdict
		state                  TaskState
		waiting, done, failed  int
		timeout, retriesResume int32
	}{
		{"completed", Verdict{Task: TaskCompleted}, TaskCompleted, 0, 1, 0, 0, -1},
		{"time limit", Verdict{Task: TaskKilled}, TaskKilled, 0, 1, 0, 1, -1},
		{"failed", Verdict{Task: TaskFailed}, TaskFailed, 0, 1, 1, 0, -1},
		{"preempted, requeued", Verdict{Task: TaskPreempted, Then: TaskQueued}, TaskPreempted, 1, 0, 0, 0, 1},
		{"preempted, failed by exit", Verdict{Task: TaskPreempted, Then: TaskFailed, ByExit: true}, TaskFailed, 0, 1, 1, 0, -1},
		{"lost, requeued", Verdict{Task: TaskQueued}, TaskQueued, 1, 0, 0, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts Tasks
			j := NewJob(Submission{Tasks: 1, Fresh: 100, Project: -1, Account: -1}, nil)
			ti := j.Launch(&ts, 0, []sched.NodeSlots{{Node: 0, Slots: 2}}, false, 0)
			if freed := j.end(&ts, ti, c.v); freed != 2 {
				t.Errorf("freed %d slots, want 2", freed)
			}
			if st := ts.At(ti).State; st != c.state {
				t.Errorf("task retired %s, want %s", st, c.state)
			}
			if j.Waiting != c.waiting || j.Ended != c.done || j.Failed != c.failed || j.Timeout != c.timeout || j.Active != 0 {
				t.Errorf("waiting %d, ended %d, failed %d, timeout %d, active %d; want %d, %d, %d, %d, 0",
					j.Waiting, j.Ended, j.Failed, j.Timeout, j.Active, c.waiting, c.done, c.failed, c.timeout)
			}
			if c.retriesResume >= 0 && (len(j.Resume) != 1 || j.Resume[0].Retries != c.retriesResume) {
				t.Errorf("resume %+v, want one task with %d retries", j.Resume, c.retriesResume)
			}
			if c.retriesResume < 0 && len(j.Resume) != 0 {
				t.Errorf("resume %+v, want none", j.Resume)
			}
		})
	}
}
