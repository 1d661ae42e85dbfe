package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// Changes of a live job's time limit, QOS and nice (PATCH /jobs/{id}),
// which the export replays as set_time_limit, set_qos and set_nice
// events at their seconds.

// jobUpdateCases: in backfill-time-limit-changes, a (time_limit 500) has
// run 100 s on n1 when its limit is lowered to 60: the master kills it
// at once, by the time limit's rule, and b starts on n1 in that second;
// c's limit set to 300 at 50 ends it at 300, where d starts on n2; e's
// limit raised from 100 to 10m at 50 lets it complete its 400 s. In
// multifactor-nice-qos, w1, w2 and w3 wait for n1 behind x, in that
// order by age; at 50 w1 is given nice 500, and at 60 w3 the QOS high,
// so that they start w3, w2, w1.
func jobUpdateCases() []replayCase {
	backfill := "pools:\n  - {name: default, policy: backfill}\n"
	mf := `
pools:
  - {name: default, policy: multifactor, multifactor: {qos: 1000, age: 10, max_age: 1h}}
qos:
  - {name: normal}
  - {name: high, priority: 10}
`
	return []replayCase{
		{name: "backfill-time-limit-changes", config: backfill, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 1000, extra: `, "time_limit": 500`, changes: []rchange{{at: 100, limit: "60"}}},
			{name: "b", slots: 4, submit: 10, run: 100},
			{name: "c", slots: 2, submit: 0, run: 1000, changes: []rchange{{at: 50, limit: "5m"}}},
			{name: "d", slots: 2, submit: 20, run: 50},
			{name: "e", slots: 1, submit: 0, run: 400, extra: `, "time_limit": 100`, changes: []rchange{{at: 50, limit: "10m"}}},
		}},
		{name: "multifactor-nice-qos", config: mf, nodes: replayNodes, jobs: []rjob{
			{name: "x", slots: 4, submit: 0, run: 100},
			{name: "w1", slots: 4, submit: 1, run: 100, changes: []rchange{{at: 50, nice: 500}}},
			{name: "w2", slots: 4, submit: 2, run: 100},
			{name: "w3", slots: 4, submit: 3, run: 100, changes: []rchange{{at: 60, qos: "high"}}},
		}},
	}
}

// TestReplayJobUpdates: the cases replay byte for byte, batched and
// live, and differ without each kind of the events the export writes
// for their changes.
func TestReplayJobUpdates(t *testing.T) {
	cases := jobUpdateCases()
	checkBatchedAndLive(t, cases)
	for _, k := range []struct {
		kind scenario.EventKind
		c    replayCase
	}{{scenario.EventSetTimeLimit, cases[0]}, {scenario.EventSetNice, cases[1]}, {scenario.EventSetQOS, cases[1]}} {
		checkStripped(t, []replayCase{k.c}, "-without-"+string(k.kind), string(k.kind), 1, func(sc *scenario.Scenario) int {
			n := len(sc.Events)
			sc.Events = slices.DeleteFunc(sc.Events, func(e scenario.Event) bool { return e.Kind == k.kind })
			return n - len(sc.Events)
		})
	}
}
