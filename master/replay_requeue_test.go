package master

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/scenario"
)

// Requeues (POST /jobs/{id}/requeue, with hold), which the export
// replays as requeue events (whatif_requeue.go) and the simulator as
// lifecycle.EventRequeue.

// requeueCases: in fifo-requeue, a (n1) is requeued at 20 and resumes
// once its 5s checkpoint lands; b (n2) is requeued and held at 30, so
// that c, waiting, takes n2 once b's checkpoint lands, and b waits
// until its release at 60 and then for room; d, queued, is requeued at
// 10 (nothing to requeue: nothing to replay) and requeued with hold at
// 12 (a hold), and released at 90. fifo-requeue-restart is the same
// with the master restarting at 32, while b checkpoints held, and at 70.
func requeueCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	jobs := func() []rjob {
		return []rjob{
			{name: "a", slots: 4, submit: 0, run: 100, changes: []rchange{{at: 20, requeue: true}}},
			{name: "b", slots: 2, submit: 1, run: 100, changes: []rchange{{at: 30, requeue: true, hold: true}, {at: 60, release: true}}},
			{name: "c", slots: 2, submit: 2, run: 50},
			{name: "d", slots: 4, submit: 3, run: 10, changes: []rchange{{at: 10, requeue: true}, {at: 12, requeue: true, hold: true},
				{at: 90, release: true}}},
		}
	}
	return []replayCase{
		{name: "fifo-requeue", config: fifo, checkpoint: 5, nodes: replayNodes, jobs: jobs()},
		{name: "fifo-requeue-restart", config: fifo, checkpoint: 5, nodes: replayNodes, restarts: []float64{32, 70}, jobs: jobs()},
		// The same jobs with time limits in a backfill pool, whose
		// reservations read the requeued tasks' checkpoints: b's, held,
		// holds n2 until it lands at 35.
		{name: "backfill-requeue", config: "pools:\n  - {name: default, policy: backfill}\n", checkpoint: 5, nodes: replayNodes,
			jobs: limited(jobs())},
	}
}

// requeueNextToCases: requeues beside priority preemption and a gang.
//
// In priority-requeue-preempt, a (LOW, n1) and b (n2) run; at 20 h
// (more important than both) arrives and preempts a, while b's owner
// requeues b: both checkpoints land at 25, h takes n1 and b n2 again
// (it ranks before a). At 60 h is requeued and held: a takes n1 back
// once h's checkpoint lands at 65, until h's release at 90 preempts it
// again; at 92, while a checkpoints for h, a is requeued and held
// (nothing of it to stop: a hold), so it stays held once its checkpoint
// lands, until its release at 200.
//
// In priority-gang-requeue, g (6 slots: n1 and n2, a gang) is requeued
// and held at 20: both parts checkpoint and land at 25, when l (LOW)
// takes n1 and w, at 30, n2. g's release at 100 preempts l for it, and
// its plain requeue at 150 stops both parts again: it resumes on n1
// and n2 once they land, l still waiting behind it.
//
// The -restart cases are the same with the master restarting while
// checkpoints of requeued tasks are in flight.
func requeueNextToCases() []replayCase {
	prio := "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	preempt := []rjob{
		{name: "a", slots: 4, submit: 0, run: 300, extra: lowPrio,
			changes: []rchange{{at: 92, requeue: true, hold: true}, {at: 200, release: true}}},
		{name: "b", slots: 2, submit: 1, run: 200, extra: `, "priority": 30, "preemptible": true`,
			changes: []rchange{{at: 20, requeue: true}}},
		{name: "h", slots: 4, submit: 20, run: 100, extra: `, "priority": 20, "preemptible": true`,
			changes: []rchange{{at: 60, requeue: true, hold: true}, {at: 90, release: true}}},
	}
	gang := []rjob{
		{name: "g", slots: 6, submit: 0, run: 200, extra: `, "priority": 40, "preemptible": true`,
			changes: []rchange{{at: 20, requeue: true, hold: true}, {at: 100, release: true}, {at: 150, requeue: true}}},
		{name: "s", slots: 1, submit: 0, run: 500},
		{name: "l", slots: 4, submit: 5, run: 300, extra: lowPrio},
		{name: "w", slots: 2, submit: 30, run: 50, extra: `, "priority": 30`},
	}
	return []replayCase{
		{name: "priority-requeue-preempt", config: prio, checkpoint: 5, nodes: replayNodes, jobs: preempt},
		{name: "priority-requeue-preempt-restart", config: prio, checkpoint: 5, nodes: replayNodes, restarts: []float64{22, 93},
			jobs: preempt},
		{name: "priority-gang-requeue", config: prio, checkpoint: 5, nodes: replayNodes, jobs: gang},
		{name: "priority-gang-requeue-restart", config: prio, checkpoint: 5, nodes: replayNodes, restarts: []float64{22, 152},
			jobs: gang},
	}
}

// limited gives each job a time limit of twice its run.
func limited(js []rjob) []rjob {
	for i := range js {
		js[i].extra = `, "time_limit": ` + strconv.Itoa(int(2*js[i].run))
	}
	return js
}

// TestReplayRequeues: the cases replay byte for byte, batched and live,
// and differ without the requeue events.
func TestReplayRequeues(t *testing.T) {
	cases := requeueCases()
	checkBatchedAndLive(t, append(slices.Clone(cases), requeueNextToCases()...))
	checkStripped(t, cases[:1], "-without-requeue", "requeue", 1, func(sc *scenario.Scenario) int {
		n := len(sc.Events)
		sc.Events = slices.DeleteFunc(sc.Events, func(e scenario.Event) bool { return e.Kind == scenario.EventRequeue })
		return n - len(sc.Events)
	})
}

// requeueJob requeues job id, named name, held too where hold says so.
func (d *replayDriver) requeueJob(t *testing.T, name string, id int64, hold bool) {
	path := "/api/v1/jobs/" + strconv.FormatInt(id, 10) + "/requeue"
	if code := d.h.do("POST", path, api.Requeue{Hold: hold}, nil); code != http.StatusOK {
		t.Fatalf("requeue %s: %d", name, code)
	}
}
