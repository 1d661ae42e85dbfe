package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Kills of a task whose move or resize is in flight. A user's kill of a
// job whose task checkpoints for a move moves it from preempting to
// killing: the live master lets go of the move's reservation at the
// kill (releaseReserved) but holds the attempt's old placement until
// its agent reports the end, which a silent node delays; the Cluster
// holds the same (lifecycle.Cluster.Kill), so that a job waiting for
// those slots starts at the kill's end in both.

// killMoveJobs are moveJobs (p3 moves at 60 for b, its checkpoint taking
// 30 s) with p3 killed at 70, its node silent for quiet seconds.
func killMoveJobs(quiet float64) []rjob {
	jobs := slices.Clone(moveJobs)
	jobs[3].kill, jobs[3].killSilent = 70, quiet
	return jobs
}

// killResizeJobs, on killResizeNodes: a holds 2 of n1's slots until
// 100, y holds n2; e (elastic) starts on n1's other 2 at 1 and grows in place at
// 100, its checkpoint taking 30 s, and is killed at 110, its node silent
// for quiet seconds. w, submitted at 105, needs all of n1.
var killResizeNodes = []rnode{{"n1", 4}, {"n2", 1}}

func killResizeJobs(quiet float64) []rjob {
	return []rjob{
		{name: "a", slots: 2, submit: 0, run: 100},
		{name: "y", slots: 1, submit: 0, run: 1000},
		{name: "e", slots: 4, minSlots: 1, submit: 1, run: 400, kill: 110, killSilent: quiet},
		{name: "w", slots: 4, submit: 105, run: 100},
	}
}

func killMoveCases() []replayCase {
	const fifo = "pools:\n  - {name: default, policy: fifo}\n"
	return []replayCase{
		// p3's node is silent until 85: live, b waits for p3's old slot
		// until then.
		{name: "fifo-slow-kill-moving", checkpoint: 30, config: fifo, nodes: replayNodes, jobs: killMoveJobs(15)},
		// p3 dies at the kill: b starts at 70.
		{name: "fifo-kill-moving-at-once", checkpoint: 30, config: fifo, nodes: replayNodes, jobs: killMoveJobs(0)},
		// e grows in place on n1 from 2 slots to 4 at 100 and is killed
		// at 110, its node silent until 125: live, the master lets go of
		// the 2 slots it reserved beyond its own at the kill and holds
		// the 2 it kept until 125, when w, which needs all of n1, starts.
		{name: "fifo-slow-kill-resizing", checkpoint: 30, config: fifo, nodes: killResizeNodes, jobs: killResizeJobs(15)},
		{name: "fifo-kill-resizing-at-once", checkpoint: 30, config: fifo, nodes: killResizeNodes, jobs: killResizeJobs(0)},
	}
}

// TestReplayKillMoving: the cases replay byte for byte, batched and live
// (TestReplayDecisions runs them too, among featureCases), and the slow
// ones differ without the export's slow_kills.
func TestReplayKillMoving(t *testing.T) {
	checkBatchedAndLive(t, killMoveCases())
	var slow []replayCase
	for _, c := range killMoveCases() {
		if strings.Contains(c.name, "slow") {
			slow = append(slow, c)
		}
	}
	checkUnexported(t, slow, "slow_kills", 1, func(j *scenario.Job) int {
		n := len(j.SlowKills)
		j.SlowKills = nil
		return n
	})
}
