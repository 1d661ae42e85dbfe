package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// afterPassScenario: two jobs in the same second on a 4-slot node, the
// second more important and too large to run beside the first.
const afterPassScenario = `
pools:
  - name: gpu
    policy: priority
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: low, submit: 10, slots: 2, duration: 100, priority: 50}
  - {name: high, submit: 10, slots: 4, duration: 100, priority: 10%s}
`

// TestAfterPass: without after_pass the second's jobs are submitted
// together and the more important one starts first; with it the instant
// settles before the second job, so the first has started, as on a live
// master that ran a pass between the two submissions. The field survives
// scenario.Marshal and Parse.
func TestAfterPass(t *testing.T) {
	for _, tc := range []struct {
		name, extra  string
		first, other string
	}{
		{"together", "", "high", "low"},
		{"after a pass", ", after_pass: true", "low", "high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("after.yaml", []byte(strings.Replace(afterPassScenario, "%s", tc.extra, 1)))
			if err != nil {
				t.Fatal(err)
			}
			data, err := scenario.Marshal(sc)
			if err != nil {
				t.Fatal(err)
			}
			if sc, err = scenario.Parse("again.yaml", data); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if got := sc.Jobs[1].AfterPass; got != (tc.extra != "") {
				t.Fatalf("after_pass %v after a round trip:\n%s", got, data)
			}
			in, err := sim.FromScenario(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(in, sim.Options{Until: -1})
			if err != nil {
				t.Fatal(err)
			}
			start := map[string]int64{}
			for _, j := range res.Jobs {
				start[j.Name] = *j.Start
			}
			if start[tc.first] != 10 || start[tc.other] != 110 {
				t.Errorf("starts %v, want %s at 10 and %s at 110", start, tc.first, tc.other)
			}
		})
	}
}

// TestAfterPassAlone: after_pass on a job alone in its second is no
// mistake. The ends due in that second come before it, and with the flag
// their pass runs before the job is submitted: the job already waiting
// gets the freed slots, as on a live master that heard of the end before
// the submission, which the what-if export marks so.
func TestAfterPassAlone(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: priority
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: first, submit: 0, slots: 4, duration: 100, priority: 50}
  - {name: waiting, submit: 10, slots: 4, duration: 100, priority: 50}
  - {name: lone, submit: 100, slots: 4, duration: 100, priority: 10%s}
`
	for _, tc := range []struct {
		name, extra string
		at100       string
	}{
		{"without the flag the more important job takes the freed slots", "", "lone"},
		{"with it the waiting job has them first", ", after_pass: true", "waiting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("alone.yaml", []byte(strings.Replace(src, "%s", tc.extra, 1)))
			if err != nil {
				t.Fatal(err)
			}
			in, err := sim.FromScenario(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(in, sim.Options{Until: -1})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range res.Jobs {
				if (j.Name == tc.at100) != (*j.Start == 100) && j.Name != "first" {
					t.Errorf("%s started at %d; want %s at 100", j.Name, *j.Start, tc.at100)
				}
			}
		})
	}
}
