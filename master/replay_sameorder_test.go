package master

import "testing"

// Events of one second in their live order. The simulator takes the
// scripted events of an instant in the file's order (each settling first
// where it says after_pass), so the export writes those of one second in
// the order the live master took them, whatever their kind (a job's kill
// or change, a node's drain or resume).

// sameSecondCases: n1 is drained from 0; nb, submitted at 5, waits for
// it (it fits n1 only). In fifo-resume-then-kill an admin resumes n1 at
// 50, which starts nb, and a user kills nb 60 ms later: live it starts
// and ends killed at 50. The export wrote the kill before the resume (a
// job's events before the nodes'), so the replay killed nb waiting, and
// never started it. In fifo-kill-then-resume the kill comes first and
// nb never starts, live and replayed.
func sameSecondCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	c := rjob{name: "c", slots: 2, submit: 0, run: 400}
	return []replayCase{
		{name: "fifo-resume-then-kill", config: fifo, nodes: replayNodes, drains: []rdown{{node: "n1", at: 0, back: 50}},
			jobs: []rjob{c, {name: "nb", slots: 4, submit: 5, run: 1000, kill: 50.06}}},
		{name: "fifo-kill-then-resume", config: fifo, nodes: replayNodes, drains: []rdown{{node: "n1", at: 0, back: 50.06}},
			jobs: []rjob{c, {name: "nb", slots: 4, submit: 5, run: 1000, kill: 50}}},
	}
}

// TestReplaySameSecondOrder: the cases replay byte for byte, batched and
// live.
func TestReplaySameSecondOrder(t *testing.T) {
	checkBatchedAndLive(t, sameSecondCases())
}
