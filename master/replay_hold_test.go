package master

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/scenario"
)

// Holds and releases (POST /jobs/{id}/hold, /release, and a submission
// held), which the export replays as a held job and hold and release
// events (whatif_hold.go).

// holdCases: in fifo-hold-release, h (4 slots) is submitted held at 0,
// so a, behind it, starts on n1 at 1; b is running when its owner tries
// to hold it at 10 (refused: nothing to replay); c is held at 20 while it
// waits for n2, so d, behind it, starts there when b ends at 32; h is
// released at 50 and c at 80, both then waiting in FIFO order for a to
// end at 101, when h starts on n1 and c on n2. In
// backfill-hold-reserved, r, the head waiting for n1 with a reservation
// at a's time limit, is held at 10 and released at 150: t, submitted at
// 20, takes n1 when a ends at 100, and r starts there once t ends at
// 150, the second of its release.
func holdCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	backfill := "pools:\n  - {name: default, policy: backfill}\n"
	return []replayCase{
		{name: "fifo-hold-release", config: fifo, nodes: replayNodes, jobs: []rjob{
			{name: "h", slots: 4, submit: 0, run: 100, held: true, changes: []rchange{{at: 50, release: true}}},
			{name: "a", slots: 4, submit: 1, run: 100},
			{name: "b", slots: 2, submit: 2, run: 30, changes: []rchange{{at: 10, hold: true}}},
			{name: "c", slots: 2, submit: 3, run: 40, changes: []rchange{{at: 20, hold: true}, {at: 80, release: true}}},
			{name: "d", slots: 2, submit: 4, run: 20},
		}},
		{name: "backfill-hold-reserved", config: backfill, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 100, extra: `, "time_limit": 200`},
			{name: "r", slots: 4, submit: 1, run: 50, extra: `, "time_limit": 100`,
				changes: []rchange{{at: 10, hold: true}, {at: 150, release: true}}},
			{name: "s", slots: 2, submit: 2, run: 300, extra: `, "time_limit": 400`},
			{name: "t", slots: 4, submit: 20, run: 50, extra: `, "time_limit": 60`},
		}},
		// fifo-hold-release again, the master restarting at 30 and 60
		// while h and c are held: the holds are read back from the store.
		{name: "fifo-hold-restart", config: fifo, nodes: replayNodes, restarts: []float64{30, 60}, jobs: []rjob{
			{name: "h", slots: 4, submit: 0, run: 100, held: true, changes: []rchange{{at: 50, release: true}}},
			{name: "a", slots: 4, submit: 1, run: 100},
			{name: "b", slots: 2, submit: 2, run: 30, changes: []rchange{{at: 10, hold: true}}},
			{name: "c", slots: 2, submit: 3, run: 40, changes: []rchange{{at: 20, hold: true}, {at: 80, release: true}}},
			{name: "d", slots: 2, submit: 4, run: 20},
		}},
	}
}

// TestReplayHolds: the case replays byte for byte, batched and live,
// and differs without the held submission, without the hold events or
// without the releases.
func TestReplayHolds(t *testing.T) {
	cases := holdCases()
	checkBatchedAndLive(t, cases)
	checkStripped(t, cases[:1], "-without-held", "held", 1, func(sc *scenario.Scenario) int {
		n := 0
		for i := range sc.Jobs {
			if sc.Jobs[i].Held {
				sc.Jobs[i].Held = false
				n++
			}
		}
		return n
	})
	for _, kind := range []scenario.EventKind{scenario.EventHold, scenario.EventRelease} {
		checkStripped(t, cases, "-without-"+string(kind), string(kind), 1, func(sc *scenario.Scenario) int {
			n := len(sc.Events)
			sc.Events = slices.DeleteFunc(sc.Events, func(e scenario.Event) bool { return e.Kind == kind })
			return n - len(sc.Events)
		})
	}
}

// submit submits job j of the case, held where it says so.
func (d *replayDriver) submit(t *testing.T, j rjob) int64 {
	if !j.held {
		return d.h.submit(d.jobFile(j))
	}
	var reply api.SubmitReply
	if code := d.h.do("POST", "/api/v1/jobs?hold=true", d.jobFile(j), &reply); code != http.StatusCreated {
		t.Fatalf("submit %s held: %d", j.name, code)
	}
	return reply.ID
}

// holdJob holds (hold true) or releases job id, named name; a hold the
// master refuses, the job running, changes nothing.
func (d *replayDriver) holdJob(t *testing.T, name string, id int64, hold bool) {
	verb := "release"
	if hold {
		verb = "hold"
	}
	if code := d.h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/"+verb, nil, nil); code/100 != 2 && code != http.StatusConflict {
		t.Fatalf("%s %s: %d", verb, name, code)
	}
}
