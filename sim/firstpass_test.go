package sim_test

import (
	"strings"
	"testing"
)

// TestFirstPass: a job with first_pass reaches the scheduler only then,
// and keeps its submit for its queue order and its wait. old, submitted
// at 10, is first considered at 11 (a live pass that read its clock in
// the next second), where new, submitted at 11 and listed first, comes
// too: under FIFO old still goes first, as its submit is earlier. Without
// the field old starts at 10. The field survives scenario.Marshal and
// Parse.
func TestFirstPass(t *testing.T) {
	const src = `
pools:
  - name: gpu
    policy: fifo
    nodes: [{name: g, slots: 4}]
jobs:
  - {name: new, submit: 11, slots: 4, duration: 100}
  - {name: old, submit: 10, slots: 4, duration: 100%s}
`
	for _, tc := range []struct {
		name, extra string
		old, new    int64
	}{
		{"at its submit", "", 10, 110},
		{"at its first pass, in its submit's order", ", first_pass: 11", 11, 111},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, data := roundTrip(t, "first.yaml", strings.Replace(src, "%s", tc.extra, 1))
			if got, want := sc.Jobs[1].FirstPass, map[bool]int64{true: 11}[tc.extra != ""]; got != want || sc.Jobs[1].Submit != 10 {
				t.Fatalf("submit %d, first_pass %d after a round trip, want 10 and %d:\n%s", sc.Jobs[1].Submit, got, want, data)
			}
			if start := runToEnd(t, sc); start["old"] != tc.old || start["new"] != tc.new {
				t.Errorf("starts %v, want old at %d and new at %d", start, tc.old, tc.new)
			}
		})
	}
}
