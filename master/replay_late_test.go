package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// A task that fails after more work than its job's exported run time
// (the mean of its completed tasks): x's trials 0 and 1 complete after
// 200 s, trial 2 fails after 500 s of its work. The export gives trial
// 2 a run time of its own that reaches its failure (runs), so the
// replay fails it then too, where it used to complete it at 200 s and
// start z, which waits for its slot, at 250. Under priority h, urgent,
// takes the slots free at 300 ahead of z.
var lateFailJobs = []rjob{
	{name: "x", slots: 1, tasks: 3, submit: 0, run: 200, runs: map[int]float64{2: 800}, fail: 500, failTask: 2, extra: lowPrio},
	{name: "y", slots: 4, submit: 0, run: 1000},
	{name: "z", slots: 3, submit: 250, run: 100},
	{name: "h", slots: 2, submit: 300, run: 50, extra: `, "priority": 10`},
}

func lateFailCases() []replayCase {
	return []replayCase{
		{name: "fifo-late-fail", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: lateFailJobs},
		{name: "priority-late-fail", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: lateFailJobs},
	}
}

// TestReplayLateFail: the cases replay byte for byte, batched and live,
// and differ without the run time the export gives the failing task.
func TestReplayLateFail(t *testing.T) {
	checkBatchedAndLive(t, lateFailCases())
	checkUnexported(t, lateFailCases(), "runs", 1, func(j *scenario.Job) int {
		n := len(j.Runs)
		j.Runs = nil
		return n
	})
}
