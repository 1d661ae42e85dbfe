package master

import "testing"

// A job killed in the second it started (issue 13, found by a new-user
// trial): live, the pass started it and the user's kill came a moment
// later in the same second; the export truncates both to the second, and
// the simulator observes a second's scripted events before its passes,
// so the replay killed the job before any pass could start it. The
// export marks such a kill after_pass (whatif_kill.go).

// killAtStartJobs: k starts at 10 as it is submitted and is killed half
// a second later; w, waiting behind a, starts at 100 as a ends and is
// killed 0.3s later, its slots going to v in that second; x is killed in
// the second it was submitted, before it could start (b holds the
// slots): no pass decided anything before that kill in its second.
var killAtStartJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 100},
	{name: "b", slots: 2, submit: 0, run: 300},
	{name: "k", slots: 1, submit: 10, run: 200, kill: 10.5},
	{name: "w", slots: 4, submit: 20, run: 200, kill: 100.3},
	{name: "v", slots: 3, submit: 30, run: 50},
	{name: "x", slots: 2, submit: 40.2, run: 50, kill: 40.6},
}

func killAtStartCases() []replayCase {
	return []replayCase{
		{name: "fifo-kill-at-start", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: killAtStartJobs},
		{name: "easy-kill-at-start", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: killAtStartJobs},
		{name: "priority-kill-at-start", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: killAtStartJobs},
	}
}

// TestReplayKillAtStart: the cases replay byte for byte, batched and
// live.
func TestReplayKillAtStart(t *testing.T) {
	checkBatchedAndLive(t, killAtStartCases())
}
