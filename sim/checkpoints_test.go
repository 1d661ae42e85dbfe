package sim

import (
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
)

// TestCheckpointTimes: an attempt with its own checkpoint time
// (checkpoints) holds its slots that long once asked, the others their
// pool's checkpoint_cost (40s). s's first attempt lands 5s after h
// preempts it at 100, so h starts at 105, not 140; at 400 h2 preempts
// f's first attempt (its own 10s) and s's second (the pool's 40s), and
// starts when the later lands, at 440. The preemptions are dated by
// their requests.
func TestCheckpointTimes(t *testing.T) {
	const src = `pools:
  - name: default
    policy: priority
    preemption: true
    checkpoint_cost: 40
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: f, submit: 0, slots: 2, duration: 2000, priority: 80, preemptible: true, checkpoints: [{task: 0, after: 10}]}
  - {name: s, submit: 0, slots: 2, duration: 2000, priority: 90, preemptible: true, checkpoints: [{task: 0, after: 5}]}
  - {name: h, submit: 100, slots: 2, duration: 100, priority: 10}
  - {name: h2, submit: 400, slots: 4, duration: 100, priority: 10}
`
	want := `0 start f task=0 attempt=1 nodes=n1:2
0 start s task=0 attempt=1 nodes=n1:2
100 preempt s task=0 attempt=1 nodes=n1:2
105 end s task=0 attempt=1 how=preempted
105 start h task=0 attempt=1 nodes=n1:2
205 end h task=0 attempt=1 how=completed
205 start s task=0 attempt=2 nodes=n1:2
400 preempt f task=0 attempt=1 nodes=n1:2
400 preempt s task=0 attempt=2 nodes=n1:2
410 end f task=0 attempt=1 how=preempted
440 end s task=0 attempt=2 how=preempted
440 start h2 task=0 attempt=1 nodes=n1:4
540 end h2 task=0 attempt=1 how=completed
540 start f task=0 attempt=2 nodes=n1:2
540 start s task=0 attempt=3 nodes=n1:2
2140 end f task=0 attempt=2 how=completed
2245 end s task=0 attempt=3 how=completed
`
	checkReplayLog(t, src, want)
}

// checkReplayLog replays scenario src (ReplayDecisions) and compares its
// decision log with want.
func checkReplayLog(t *testing.T, src, want string) {
	t.Helper()
	sc, err := scenario.Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := decisionlog.Format(ds); got != want {
		t.Errorf("decisions:\n%s\nwant:\n%s\n%s", got, want, decisionlog.Diff(want, got, 2))
	}
}

// moveThenPreempt is the cluster and first jobs of the nth-checkpoint
// cases: p3, on n2, is the one job a move can make room with; each case
// adds p3's checkpoints and what comes after.
const moveThenPreempt = `pools:
  - name: default
    policy: priority
    preemption: true
    checkpoint_cost: 30
    nodes: [{name: n1, slots: 4}, {name: n2, slots: 2}, {name: n3, slots: 1}]
jobs:
  - {name: a, submit: 0, slots: 3, duration: 1000}
  - {name: p1, submit: 1, slots: 1, duration: 50, preemptible: true}
  - {name: p2, submit: 2, slots: 1, duration: 1000, preemptible: true}
  - name: p3
    submit: 3
    slots: 1
    duration: 400
    priority: 80
    preemptible: true
`

// TestNthCheckpointTimes: a move continues its attempt, so one attempt
// may checkpoint twice; an item with an nth gives that checkpoint its own
// time over the attempt's. p3 moves from n2 to n1 at 60 for b (its
// first checkpoint, 30s) and is preempted at 100 for f (its second,
// 10s): f starts at 110, where with the attempt's time alone it started
// at 130.
func TestNthCheckpointTimes(t *testing.T) {
	const src = moveThenPreempt + `    checkpoints: [{task: 0, after: 30}, {task: 0, nth: 2, after: 10}]
  - {name: b, submit: 60, slots: 2, duration: 300}
  - {name: f, submit: 100, slots: 1, duration: 1000}
`
	want := `0 start a task=0 attempt=1 nodes=n1:3
1 start p1 task=0 attempt=1 nodes=n1:1
2 start p2 task=0 attempt=1 nodes=n3:1
3 start p3 task=0 attempt=1 nodes=n2:1
51 end p1 task=0 attempt=1 how=completed
60 move p3 task=0 attempt=1 nodes=n1:1
90 start b task=0 attempt=1 nodes=n2:2
100 preempt p3 task=0 attempt=1 nodes=n1:1
110 end p3 task=0 attempt=1 how=preempted
110 start f task=0 attempt=1 nodes=n1:1
390 end b task=0 attempt=1 how=completed
390 start p3 task=0 attempt=2 nodes=n2:1
723 end p3 task=0 attempt=2 how=completed
1000 end a task=0 attempt=1 how=completed
1002 end p2 task=0 attempt=1 how=completed
1110 end f task=0 attempt=1 how=completed
`
	checkReplayLog(t, src, want)
}

// TestUnplacedMoveCheckpointTime: a move whose checkpoint lands with its
// new node down never happens, and its attempt ends preempted where it
// ran, with no preemption request of its own; the decision log dates the
// preemption by the move's request, at 60, whatever checkpoint time that
// request took (its own, by its nth: 10s, not the pool's 30s).
func TestUnplacedMoveCheckpointTime(t *testing.T) {
	const src = moveThenPreempt + `    checkpoints: [{task: 0, nth: 1, after: 10}]
  - {name: b, submit: 60, slots: 2, duration: 300}
events:
  - {at: 65, node_down: n1}
`
	want := `0 start a task=0 attempt=1 nodes=n1:3
1 start p1 task=0 attempt=1 nodes=n1:1
2 start p2 task=0 attempt=1 nodes=n3:1
3 start p3 task=0 attempt=1 nodes=n2:1
51 end p1 task=0 attempt=1 how=completed
60 preempt p3 task=0 attempt=1 nodes=n2:1
65 end a task=0 attempt=1 how=lost
70 end p3 task=0 attempt=1 how=preempted
70 start b task=0 attempt=1 nodes=n2:2
370 end b task=0 attempt=1 how=completed
370 start p3 task=0 attempt=2 nodes=n2:1
713 end p3 task=0 attempt=2 how=completed
1002 end p2 task=0 attempt=1 how=completed
`
	checkReplayLog(t, src, want)
}
