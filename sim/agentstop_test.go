package sim

import "testing"

// TestAgentPreempted: attempts their agent preempted as it shut down
// (agent_preempted) end preempted with no preemption request logged and
// wait again whatever their preemptibility: n, not preemptible, resumes
// at once on n2 with all its work kept; p, checkpointing every 40s,
// keeps 80 of its 100s; s, preempted by h before its agent's turn
// (keeping its 50s), starts again later as attempt 2, which the script
// (attempt 1) leaves alone.
func TestAgentPreempted(t *testing.T) {
	const src = `pools:
  - name: default
    policy: priority
    preemption: true
    nodes: [{name: n1, slots: 2}, {name: n2, slots: 2}]
jobs:
  - {name: n, submit: 0, slots: 1, duration: 300, agent_preempted: [{task: 0, after: 100}]}
  - {name: p, submit: 0, slots: 1, duration: 300, preemptible: true, checkpoint_every: 40, agent_preempted: [{task: 0, after: 100}]}
  - {name: s, submit: 0, slots: 2, duration: 300, priority: 80, agent_preempted: [{task: 0, after: 150}]}
  - {name: h, submit: 50, slots: 2, duration: 200, priority: 10}
`
	want := `0 start n task=0 attempt=1 nodes=n1:1
0 start p task=0 attempt=1 nodes=n1:1
0 start s task=0 attempt=1 nodes=n2:2
50 preempt s task=0 attempt=1 nodes=n2:2
50 end s task=0 attempt=1 how=preempted
50 start h task=0 attempt=1 nodes=n2:2
100 end n task=0 attempt=1 how=preempted
100 end p task=0 attempt=1 how=preempted
100 start n task=0 attempt=2 nodes=n1:1
100 start p task=0 attempt=2 nodes=n1:1
250 end h task=0 attempt=1 how=completed
250 start s task=0 attempt=2 nodes=n2:2
300 end n task=0 attempt=2 how=completed
320 end p task=0 attempt=2 how=completed
500 end s task=0 attempt=2 how=completed
`
	checkReplayLog(t, src, want)
}
