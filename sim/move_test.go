package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// Moves (consolidation) whose old placement is still draining when the
// moved task's job ends: the old slots are freed with the job, and the
// job's slot count never goes negative or leaks.
func TestMoveOutlivedByItsJob(t *testing.T) {
	const src = `pools:
  - {name: gpu, policy: priority, placement: spread, checkpoint_cost: 10m, nodes: [{name: n, count: 2, slots: 4}]}
jobs:
  - {name: small, kind: experiment, tasks: 4, slots: 1, duration: 12m}
  - {name: big, kind: experiment, submit: 10m, slots: 4, duration: 1h}
%s`
	cases := []struct {
		name   string
		events string
		state  sim.State
	}{
		{"the moved tasks complete", "", sim.StateCompleted},
		{"the job is killed", "events: [{at: 11m, kill: small}]\n", sim.StateKilled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, strings.Replace(src, "%s", c.events, 1))
			if res.Metrics.Moves == 0 {
				t.Fatalf("nothing moved; the test needs a consolidation at 10m")
			}
			small := job(t, res, "small")
			if small.State != c.state || small.End == nil || *small.End > 12*minute {
				t.Errorf("small = %+v, want %s by 12m", small, c.state)
			}
			// The draining old placements go with the job, so big starts
			// when small ends rather than when their checkpoint would land.
			if big := job(t, res, "big"); big.Start == nil || *big.Start != *small.End {
				t.Errorf("big started at %s, want when small ended (%s)", startOf(big), sim.Clock(*small.End))
			}
			for _, e := range res.Timeline {
				if n := e.Slots["small"]; e.Time >= *small.End && n != 0 {
					t.Errorf("at t=%d small still holds %d slots after it ended", e.Time, n)
				}
			}
		})
	}
}
