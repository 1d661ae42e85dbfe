package master

import "testing"

// TestReplayFairShareShrink: fair share's giving back replays byte for
// byte, batched and live. e, elastic (4 slots, down to 1), holds n1's 4
// GPUs from 0; f and g fill n2 and n3. b, of project b and weight 3,
// comes at 100 with a 1-GPU task: the core shrinks e in place to 3
// (checkpoint, 20 s), and b starts on the GPU it gave back when the
// checkpoint lands; e grows back once b ends and a slot is spare.
func TestReplayFairShareShrink(t *testing.T) {
	checkBatchedAndLive(t, []replayCase{
		{name: "fair-share-elastic-shrink", checkpoint: 20, config: fairShareConfig, nodes: replayNodes, jobs: []rjob{
			{name: "e", slots: 4, minSlots: 1, submit: 0, run: 1200, project: "a", extra: preemptible},
			{name: "f", slots: 2, submit: 0, run: 1500, project: "a", extra: preemptible},
			{name: "g", slots: 1, submit: 0, run: 1500, project: "a", extra: preemptible},
			{name: "b", slots: 1, submit: 100, run: 300, project: "b", extra: `, "weight": 3`},
		}},
	})
}
