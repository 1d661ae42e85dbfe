package agent

import (
	"testing"
	"time"
)

// TestStopAfterTheExit: a stop asked after the task had exited, as its
// shim recorded, did not end it, so its outcome is its exit's; one asked
// before is the stop's (trial 2026-11-29b B19: a frozen agent woke up,
// fenced a task that had exited 0 meanwhile, and reported it preempted,
// so it ran again).
func TestStopAfterTheExit(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 4, 37, 55, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		code    int
		preempt time.Duration // after the exit; 0: none
		kill    time.Duration
		shim    time.Duration // the shim's fence asked, after the exit; 0: it did not
		want    Outcome
	}{
		{"exited 0, no stop", 0, 0, 0, 0, OutcomeCompleted},
		{"exited 0, fenced 18s later", 0, 18 * time.Second, 0, 0, OutcomeCompleted},
		{"exited 3, fenced later", 3, 18 * time.Second, 0, 0, OutcomeFailed},
		{"exited 0, killed later", 0, 0, 5 * time.Second, 0, OutcomeCompleted},
		{"preempted, then exited", 0, -time.Second, 0, 0, OutcomePreempted},
		{"killed, then exited", 143, 0, -2 * time.Second, 0, OutcomeKilled},
		{"preempted, then killed, then exited", 0, -3 * time.Second, -time.Second, 0, OutcomeKilled},
		{"the shim's fence, exited, then the woken agent's fence", 0, 18 * time.Second, 0, -time.Second, OutcomePreempted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := &Task{done: make(chan struct{})}
			if tc.preempt != 0 {
				task.preemptAt = t0.Add(tc.preempt)
			}
			if tc.kill != 0 {
				task.killRequested, task.killAsked = true, t0.Add(tc.kill)
			}
			if tc.shim != 0 {
				task.fencedByShim(t0.Add(tc.shim))
			}
			task.finishResult(Result{ExitCode: tc.code, ExitedAt: t0}, nil)
			if got := task.Wait().Outcome; got != tc.want {
				t.Errorf("outcome %s, want %s", got, tc.want)
			}
		})
	}
}
