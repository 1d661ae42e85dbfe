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
	checkBatchedAndLive(t, cases)
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
