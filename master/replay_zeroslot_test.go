package master

import "testing"

// TestReplayZeroSlotLimit: a pool's zero_slot_limit replays. On one node
// with a limit of one zero-slot task, nb1 runs from 0 to 100 and nb2,
// submitted at 10, waits for it and starts at 100, live and in the
// replay, which reads the limit from the what-if export (a replay at the
// default limit would start nb2 at 10). (A limit of 0 refuses such
// jobs at submission: TestSubmitToPoolWithoutZeroSlotTasks.)
func TestReplayZeroSlotLimit(t *testing.T) {
	jobs := []rjob{
		{name: "nb1", slots: 0, submit: 0, run: 100},
		{name: "c", slots: 2, submit: 0, run: 400},
		{name: "nb2", slots: 0, submit: 10, run: 100},
	}
	checkBatchedAndLive(t, []replayCase{
		{name: "fifo-zero-slot-limit", config: "pools:\n  - {name: default, policy: fifo, zero_slot_limit: 1}\n",
			nodes: []rnode{{"n1", 4}}, jobs: jobs},
	})
}
