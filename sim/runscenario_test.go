package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// runAttempts runs a parsed scenario to its end with every attempt in
// the result, failing the test on any error.
func runAttempts(t *testing.T, sc *scenario.Scenario) *sim.Result {
	t.Helper()
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
