package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// Moves (consolidation) of tasks that checkpoint for 10m: a moved task
// does no work until its checkpoint lands (the live master's rule,
// lifecycle.Replannable), so the small tasks, moved at 10m with 2m of
// work left, complete at 22m, and big starts at 20m, when their old
// placements are free. A job killed while its moves are under way frees
// both placements with the job: the job's slot count never goes
// negative or leaks.
func TestMoveOutlivedByItsJob(t *testing.T) {
	const src = `pools:
  - {name: gpu, policy: priority, placement: spread, checkpoint_cost: 10m, nodes: [{name: n, count: 2, slots: 4}]}
jobs:
  - {name: small, kind: experiment, tasks: 4, slots: 1, duration: 12m}
  - {name: big, kind: experiment, submit: 10m, slots: 4, duration: 1h}
%s`
	cases := []struct {
		name     string
		events   string
		state    sim.State
		end, big int64 // when small ends and big starts
	}{
		{"the moved tasks complete", "", sim.StateCompleted, 22 * minute, 20 * minute},
		{"the job is killed", "events: [{at: 11m, kill: small}]\n", sim.StateKilled, 11 * minute, 11 * minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, strings.Replace(src, "%s", c.events, 1))
			if res.Metrics.Moves == 0 {
				t.Fatalf("nothing moved; the test needs a consolidation at 10m")
			}
			small := job(t, res, "small")
			if small.State != c.state || small.End == nil || *small.End != c.end {
				t.Errorf("small = %+v, want %s at %s", small, c.state, sim.Clock(c.end))
			}
			if big := job(t, res, "big"); big.Start == nil || *big.Start != c.big {
				t.Errorf("big started at %s, want %s", startOf(big), sim.Clock(c.big))
			}
			for _, e := range res.Timeline {
				if n := e.Slots["small"]; small.End != nil && e.Time >= *small.End && n != 0 {
					t.Errorf("at t=%d small still holds %d slots after it ended", e.Time, n)
				}
			}
		})
	}
}
