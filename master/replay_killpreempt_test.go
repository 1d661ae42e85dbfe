package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Kills of a task being preempted. A user's kill of a job whose task is
// checkpointing for a preemption moves it from preempting to killing;
// the live master holds its GPUs until its agent reports the end, which
// comes at the kill (a task that dies at once) or, for a task that
// traps SIGTERM, at the preemption's deadline, when its agent kills it
// (trial 2026-11-29d, D17). Either way the attempt ends killed and
// what preempted it starts then. The export gives such an attempt a
// checkpoint that takes longer than until the kill (checkpointTime), so
// that the replay's landing never comes first, and the kill's own time
// (slow_kills).

// killPreemptingJobs: low holds n1's 4 GPUs from 0, its checkpoint
// taking 30 s; urgent preempts it at 100; a user kills low at 103, its
// node silent for quiet seconds after the kill (0: the agent ends it at
// once). c runs on n2 throughout, so that the cluster is not idle.
func killPreemptingJobs(quiet float64) []rjob {
	return []rjob{
		{name: "low", slots: 4, submit: 0, run: 2000, extra: lowPrio, checkpoint: 30, kill: 103, killSilent: quiet},
		{name: "c", slots: 2, submit: 0, run: 400},
		{name: "urgent", slots: 4, submit: 100, run: 100, extra: `, "priority": 10`},
	}
}

func killPreemptingCases() []replayCase {
	const cfg = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	return []replayCase{
		// The episode of D17: the agent kills low at the preemption's
		// deadline, 110 (its node silent until then), so low's attempt
		// ends killed at 110 and urgent starts then. A replay that landed
		// low's checkpoint before the kill ended it preempted at 100 and
		// started urgent then.
		{name: "priority-kill-preempting", checkpoint: 10, config: cfg, nodes: replayNodes, jobs: killPreemptingJobs(7)},
		// A task that dies at the kill: low ends killed at 103, and
		// urgent starts then.
		{name: "priority-kill-preempting-at-once", checkpoint: 10, config: cfg, nodes: replayNodes, jobs: killPreemptingJobs(0)},
	}
}

// TestReplayKillPreempting: the cases replay byte for byte, batched and
// live (TestReplayDecisions runs them too, among featureCases), and differ when the export
// leaves out the checkpoint times (the pool's and the jobs' own), as it
// did before it counted a killed attempt's.
func TestReplayKillPreempting(t *testing.T) {
	checkBatchedAndLive(t, killPreemptingCases())
	checkStripped(t, killPreemptingCases(), "-unexported", "checkpoint", 1, func(sc *scenario.Scenario) int {
		n := 0
		for i := range sc.Pools {
			if sc.Pools[i].CheckpointCost > 0 {
				sc.Pools[i].CheckpointCost = 0
				n++
			}
		}
		for i := range sc.Jobs {
			n += len(sc.Jobs[i].Checkpoints)
			sc.Jobs[i].Checkpoints = nil
		}
		return n
	})
}
