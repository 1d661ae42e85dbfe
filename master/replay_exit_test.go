package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// lateExitConfig is a multifactor pool that weighs fair share alone
// (and age, equal here) between two projects of equal shares.
const lateExitConfig = `
pools:
  - name: default
    policy: multifactor
    multifactor: {fair_share: 100, age: 10, max_age: 1h, fair_share_mode: classic}
projects:
  - {name: a}
  - {name: b}
default_project: a
decay: {period: 5m, per_period: 0.5}
`

// lateExitJobs: a1's task exits at 100, but its agent, cut off, reports
// the exit only at 600 (rjob.early), when the master frees its 4 slots
// and charges a for 4 slots over [0, 100) only; b1 holds n2's 2 slots
// from 0 to 800 (3 slots, which n1 holds alone, would wait for n1 rather
// than span n2 and n3: sched's find). At 600 a2 and b2, submitted
// together, both want the 4 slots: live, a has used less than b (400
// slot-seconds against 1200, decayed) and a2 starts; a replay that
// charged a1 until 600 (2400 slot-seconds) would rank b first and start
// b2.
var lateExitJobs = []rjob{
	{name: "a1", slots: 4, submit: 0, run: 600, project: "a", early: 500},
	{name: "b1", slots: 2, submit: 0, run: 800, project: "b"},
	{name: "a2", slots: 4, submit: 10, run: 100, project: "a"},
	{name: "b2", slots: 4, submit: 10, run: 100, project: "b"},
}

func lateExitCases() []replayCase {
	return []replayCase{
		{name: "multifactor-late-exit", config: lateExitConfig, nodes: replayNodes, jobs: lateExitJobs},
		// The same with a task that fails, its exit heard late too: the
		// charge ends at the exit whatever ends the attempt.
		{name: "multifactor-late-exit-fail", config: lateExitConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 4, submit: 0, run: 900, fail: 600, project: "a", early: 500},
			lateExitJobs[1], lateExitJobs[2], lateExitJobs[3],
		}},
		// A task across two nodes (n1 and n2), both parts exiting at 50
		// and heard of at 600: a is charged 6 slots over [0, 50), 300
		// slot-seconds, less than b1's 600 on n3; charged until 600 it
		// would be 3600 and b2 would start first.
		{name: "multifactor-late-exit-gang", config: lateExitConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 6, submit: 0, run: 600, project: "a", early: 550},
			{name: "b1", slots: 1, submit: 0, run: 800, project: "b"},
			{name: "a2", slots: 6, submit: 10, run: 100, project: "a"},
			{name: "b2", slots: 6, submit: 10, run: 100, project: "b"},
		}},
	}
}

// TestReplayLateExit: an exit the master heard of late replays byte for
// byte, batched and live, and the replay differs without the export's
// late_exits, which it writes for it.
func TestReplayLateExit(t *testing.T) {
	checkBatchedAndLive(t, lateExitCases())
	checkUnexported(t, lateExitCases(), "late_exits", 1, func(j *scenario.Job) int {
		n := len(j.LateExits)
		j.LateExits = nil
		return n
	})
}
