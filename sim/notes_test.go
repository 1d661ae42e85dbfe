package sim

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/trace"
)

// TestTraceNotesAgree: the trace's notes agree with their counts: one
// job gives, its time limit; two jobs give, their time limits.
func TestTraceNotesAgree(t *testing.T) {
	tests := []struct {
		name             string
		noLimit, overrun int
		want             []string
	}{
		{"none", 0, 0, nil},
		{"one each", 1, 1, []string{
			"1 job gives no requested time (first at line 3); its time limit is its run time (exact estimates)",
			"1 job ran longer than its requested time (first at line 5); it is killed at the limit"}},
		{"several", 2, 35, []string{
			"2 jobs give no requested time (first at line 3); their time limit is their run time (exact estimates)",
			"35 jobs ran longer than their requested time (first at line 5); they are killed at the limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := &TraceSource{noLimit: tt.noLimit, overrun: tt.overrun, firstNL: 3, firstOvr: 5}
			if got := ts.Notes(); !slices.Equal(got, tt.want) {
				t.Errorf("notes %q, want %q", got, tt.want)
			}
		})
	}
}

// TestShapeAgrees: the cluster's note counts nodes and slots in words
// that agree with them.
func TestShapeAgrees(t *testing.T) {
	tests := []struct {
		nodes, slots int
		want         string
	}{
		{1, 1, "1 single-slot node"},
		{128, 1, "128 single-slot nodes"},
		{1, 8, "1 node of 8 slots"},
		{4, 8, "4 nodes of 8 slots"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := shape(tt.nodes, tt.slots); got != tt.want {
				t.Errorf("shape(%d, %d) = %q, want %q", tt.nodes, tt.slots, got, tt.want)
			}
		})
	}
}

// TestTooWideAgrees: the skip of jobs wider than the cluster counts its
// slots in words that agree with them.
func TestTooWideAgrees(t *testing.T) {
	tests := []struct {
		slots int
		want  string
	}{
		{1, SkipTooWide + " (1 slot)"},
		{4, SkipTooWide + " (4 slots)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			ts := &TraceSource{r: noSkips{}, maxSlots: tt.slots}
			ts.tooWide.Count, ts.tooWide.FirstLine = 1, 12
			got := ts.Skipped()
			if len(got) != 1 || got[0].Reason != tt.want {
				t.Errorf("skipped %+v, want the reason %q", got, tt.want)
			}
		})
	}
}

// noSkips is a trace that skipped nothing.
type noSkips struct{ trace.Reader }

func (noSkips) Skipped() []trace.Skipped { return nil }
