package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Checkpoints that take different times to land within a pool. Live,
// each preempted task holds its slots until its own checkpoint lands;
// the export gives the pool the longest time and each attempt that took
// another its own (the job's checkpoints), so the replay holds each for
// as long as it held them live.
func checkpointTimeCases() []replayCase {
	const cfg = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	return []replayCase{
		// fast checkpoints in 10s, slow in 40s: h1 preempts one of them
		// at 100 and starts when that one lands, h2 the other at 300. With
		// the pool's one time (40s), the replay starts h1 late, or h2 and
		// its follower.
		{name: "priority-checkpoint-times", checkpoint: 40, config: cfg, nodes: []rnode{{"n1", 4}},
			jobs: []rjob{
				{name: "fast", slots: 2, submit: 0, run: 2000, extra: lowPrio, checkpoint: 10},
				{name: "slow", slots: 2, submit: 0, run: 2000, extra: lowPrio},
				{name: "h1", slots: 2, submit: 100, run: 100, extra: `, "priority": 10`},
				{name: "h2", slots: 2, submit: 300, run: 150, extra: `, "priority": 10`},
				{name: "after", slots: 2, submit: 305, run: 100, extra: `, "priority": 40`},
			}},
		// Each job preempted more than once: h2 takes the whole node at
		// 300 (both land, the fast one 30s before the slow one), h3 half
		// of it at 600, so later attempts have their own times too.
		{name: "priority-checkpoint-times-again", checkpoint: 40, config: cfg, nodes: []rnode{{"n1", 4}},
			jobs: []rjob{
				{name: "fast", slots: 2, submit: 0, run: 2000, extra: lowPrio, checkpoint: 10},
				{name: "slow", slots: 2, submit: 0, run: 2000, extra: lowPrio},
				{name: "h1", slots: 2, submit: 100, run: 100, extra: `, "priority": 10`},
				{name: "h2", slots: 4, submit: 300, run: 150, extra: `, "priority": 10`},
				{name: "h3", slots: 2, submit: 600, run: 100, extra: `, "priority": 10`},
				{name: "mid", slots: 2, submit: 605, run: 50, extra: `, "priority": 40`},
			}},
		// p3 moves from n2 to n1 at 60 to make room for b, its
		// checkpoint taking 30s, and is preempted at 100 for f in the
		// same attempt to the simulator (a move continues it), that
		// checkpoint taking 10s: f starts at 110. With one time for the
		// attempt (the first's), the replay started f at 130.
		{name: "priority-move-then-preempt-checkpoint-times", checkpoint: 30, config: cfg, nodes: replayNodes,
			jobs: []rjob{
				{name: "a", slots: 3, submit: 0, run: 1000},
				{name: "p1", slots: 1, submit: 1, run: 50, extra: preemptible},
				{name: "p2", slots: 1, submit: 2, run: 1000, extra: preemptible},
				{name: "p3", slots: 1, submit: 3, run: 400, extra: lowPrio, checkpoints: []float64{30, 10}},
				{name: "b", slots: 2, submit: 60, run: 300},
				{name: "f", slots: 1, submit: 100, run: 1000},
			}},
	}
}

// TestReplayCheckpointTimes: the cases replay byte for byte, batched and
// live, and differ without the export's checkpoints.
func TestReplayCheckpointTimes(t *testing.T) {
	checkBatchedAndLive(t, checkpointTimeCases())
	checkUnexported(t, checkpointTimeCases(), "checkpoints", 1, func(j *scenario.Job) int {
		n := len(j.Checkpoints)
		j.Checkpoints = nil
		return n
	})
}
