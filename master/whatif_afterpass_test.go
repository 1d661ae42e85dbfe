package master

import (
	"testing"
	"time"
)

// TestAfterPassAt: a node event is after_pass when a decision came since
// the node event before it in its second (or since the second began),
// a decision at its very time coming after it.
func TestAfterPassAt(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return since.Add(time.Duration(s * float64(time.Second))) }
	for _, tc := range []struct {
		name      string
		decisions []float64
		events    []float64
		want      []bool
	}{
		{"no decision", nil, []float64{100, 100.001}, []bool{false, false}},
		{"a pass between two events", []float64{100.001}, []float64{100.001, 100.002}, []bool{false, true}},
		{"a pass before the first", []float64{100}, []float64{100.001, 100.002}, []bool{true, false}},
		{"all at one time: the decision after both", []float64{100}, []float64{100, 100}, []bool{false, false}},
		{"a pass in the second before", []float64{99.9}, []float64{100}, []bool{false}},
		{"a pass after the last", []float64{100.5}, []float64{100, 100.2}, []bool{false, false}},
		{"each second alone", []float64{100.5, 200}, []float64{100.2, 100.7, 200.1}, []bool{false, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ds []time.Time
			for _, d := range tc.decisions {
				ds = append(ds, at(d))
			}
			after := afterPassAt(ds, since)
			for i, e := range tc.events {
				if got := after(at(e)); got != tc.want[i] {
					t.Errorf("event %d at %g: after_pass %v, want %v", i, e, got, tc.want[i])
				}
			}
		})
	}
}
