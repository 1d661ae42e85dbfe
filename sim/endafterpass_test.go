package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// TestEndsAfterPass: an attempt in ends_after_pass ends after its
// instant is settled (trial 2026-11-29j J1). a holds g2, the best fit
// for b's 2 slots, until 10; b is submitted at 10. Taken end first, g2
// is free and b goes there; with a's end after the pass, b is placed
// while a still holds g2, on g1, as a live master whose pass came before
// a's exit within the second placed it. The field survives
// scenario.Marshal and Parse.
func TestEndsAfterPass(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: fifo
    placement: binpack
    nodes: [{name: g1, slots: 4}, {name: g2, slots: 2}]
jobs:
  - {name: a, submit: 0, slots: 2, duration: 10%s}
  - {name: b, submit: 10, slots: 2, duration: 100}
`
	for _, tc := range []struct{ name, extra, b string }{
		{"end first", "", "10 start b task=0 attempt=1 nodes=g2:2"},
		{"end after the pass", ", ends_after_pass: [{task: 0}]", "10 start b task=0 attempt=1 nodes=g1:2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, data := roundTrip(t, "ends.yaml", strings.Replace(src, "%s", tc.extra, 1))
			if got := len(sc.Jobs[0].EndsAfterPass); got != map[bool]int{true: 1}[tc.extra != ""] {
				t.Fatalf("%d ends_after_pass after a round trip:\n%s", got, data)
			}
			ds, err := sim.ReplayDecisions(sc)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, d := range ds {
				lines = append(lines, d.Line())
			}
			if log := strings.Join(lines, "\n"); !strings.Contains(log, tc.b) || !strings.Contains(log, "10 end a task=0 attempt=1 how=completed") {
				t.Errorf("want %q and a's end at 10 in:\n%s", tc.b, log)
			}
		})
	}
}
