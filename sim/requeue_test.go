package sim

import "testing"

// TestRequeue: a requeue event stops a's running task as a preemption
// does (it lands after the pool's checkpoint_cost, 40s, and is not
// logged as a pass's preemption), and the task starts again at once,
// with the work it had (its 1000s end moves by the 40s and the time
// it waited, none here). With hold: true, b's task checkpoints and then
// waits held, its slots left to c, until its release at 500.
func TestRequeue(t *testing.T) {
	const src = `pools:
  - name: default
    policy: priority
    preemption: true
    checkpoint_cost: 40
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: a, submit: 0, slots: 2, duration: 1000, preemptible: true}
  - {name: b, submit: 0, slots: 2, duration: 1000, preemptible: true}
  - {name: c, submit: 10, slots: 2, duration: 100}
events:
  - {at: 100, requeue: a}
  - {at: 200, requeue: b, hold: true}
  - {at: 500, release: b}
`
	want := `0 start a task=0 attempt=1 nodes=n1:2
0 start b task=0 attempt=1 nodes=n1:2
140 end a task=0 attempt=1 how=preempted
140 start a task=0 attempt=2 nodes=n1:2
240 end b task=0 attempt=1 how=preempted
240 start c task=0 attempt=1 nodes=n1:2
340 end c task=0 attempt=1 how=completed
500 start b task=0 attempt=2 nodes=n1:2
1040 end a task=0 attempt=2 how=completed
1300 end b task=0 attempt=2 how=completed
`
	checkReplayLog(t, src, want)
}
