package master

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Attempts lost, their node up, after a move or resize continued them
// (found with the fence's cases, replay_fence_test.go): the master
// restarts a re-placed task as a new attempt of its own, which the
// export counts as the one it continues, as the simulator does. Before,
// the export left such a loss out, and the simulator dropped a loss it
// had promised at the start as stale at the re-placement, so the replay
// ran the attempt on.

// lostContinuedCases: p3 moves from n2 to n1 at 60 and its attempt, the
// move's restart, is lost 40s later; e starts on 1 slot at 0, grows to 2
// in the next pass, and is lost at 50.
func lostContinuedCases() []replayCase {
	moved := append([]rjob(nil), moveJobs...)
	moved[3].lost, moved[3].lostAttempt = 40, 2
	grown := append([]rjob(nil), elasticGrowJobs...)
	grown[2].lost, grown[2].lostAttempt, grown[2].extra = 50, 2, preemptible
	return []replayCase{
		{name: "fifo-move-attempt-lost", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: moved},
		{name: "elastic-grow-fifo-attempt-lost", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: grown},
	}
}

// TestReplayAttemptLostContinued: the cases replay byte for byte,
// batched and live; without the export's lost the replay runs the lost
// attempts on, and the decisions differ.
func TestReplayAttemptLostContinued(t *testing.T) {
	checkBatchedAndLive(t, lostContinuedCases())
	checkUnexported(t, lostContinuedCases(), "lost", 1, func(j *scenario.Job) int {
		n := len(j.Lost)
		j.Lost = nil
		return n
	})
}
