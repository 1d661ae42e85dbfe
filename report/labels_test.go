package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestUniqueLabels: every run's label is unique; a run configured as an
// earlier one says which (the latest, so that several alike say
// different ones), and a label that would still collide gets a number.
func TestUniqueLabels(t *testing.T) {
	tests := []struct {
		name   string
		labels []string
		names  []string
		want   []string
	}{
		{"all differ", []string{"fifo", "backfill/easy"}, []string{"fcfs", "easy"}, []string{"fifo", "backfill/easy"}},
		{"two alike", []string{"backfill/easy", "backfill/easy"}, []string{"easy", "backfill"},
			[]string{"backfill/easy", "backfill/easy (same as easy)"}},
		{"three alike", []string{"fifo", "fifo", "fifo"}, []string{"fcfs", "fifo", "f"},
			[]string{"fifo", "fifo (same as fcfs)", "fifo (same as fifo)"}},
		{"alike apart", []string{"fifo", "backfill/easy", "fifo"}, []string{"a", "b", "c"},
			[]string{"fifo", "backfill/easy", "fifo (same as a)"}},
		{"a marked label that another run has", []string{"x", "x", "x (same as a)"}, []string{"a", "b", "c"},
			[]string{"x", "x (same as a)", "x (same as a) #2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := uniqueLabels(tt.labels, tt.names)
			if !slices.Equal(got, tt.want) {
				t.Errorf("uniqueLabels = %q, want %q", got, tt.want)
			}
			seen := map[string]bool{}
			for _, l := range got {
				if seen[l] {
					t.Errorf("label %q twice in %q", l, got)
				}
				seen[l] = true
			}
		})
	}
}

// TestComparisonLabels: runs with a Config are labelled against each
// other, so that what one turns on reads as off in another; runs without
// one by their Policy; either way uniquely.
func TestComparisonLabels(t *testing.T) {
	prio := func(preempt bool) []sim.PoolConfig {
		return []sim.PoolConfig{{Pool: "gpu", Policy: sched.PolicyPriority, Placement: sched.PlaceBinpack, Preemption: preempt}}
	}
	res := &sim.Result{}
	tests := []struct {
		name string
		runs []Run
		want []string
	}{
		{"configured", []Run{{Name: "a", Policy: "priority", Config: prio(false), Result: res},
			{Name: "b", Policy: "priority/preemption", Config: prio(true), Result: res}},
			[]string{"priority/no-preemption", "priority/preemption"}},
		{"configured alike", []Run{{Name: "a", Config: prio(true), Result: res}, {Name: "b", Config: prio(true), Result: res}},
			[]string{"priority/preemption", "priority/preemption (same as a)"}},
		{"a run without a config: policies", []Run{{Name: "a", Policy: "priority", Config: prio(false), Result: res},
			{Name: "b", Policy: "priority", Result: res}},
			[]string{"priority", "priority (same as a)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Comparison{Runs: tt.runs}
			if got := c.Labels(); !slices.Equal(got, tt.want) {
				t.Errorf("Labels = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWaitNear: the longest wait is rounded as the table rounds, but
// printed exactly where rounding would read as the threshold.
func TestWaitNear(t *testing.T) {
	tests := []struct {
		name        string
		wait, after int64
		want        string
	}{
		{"far under", 3600, 86400, "1h"},
		{"far over", 3 * 86400, 86400, "3d"},
		{"exactly at", 86400, 86400, "1d"},
		{"just over, rounds to the threshold", 86400 + 3600, 86400, "25h"},
		{"just under, rounds to the threshold", 86400 - 60, 86400, "23h59m"},
		{"seconds", 27, 20, "27s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitNear(tt.wait, tt.after); got != tt.want {
				t.Errorf("waitNear(%d, %d) = %q, want %q", tt.wait, tt.after, got, tt.want)
			}
		})
	}
}

// TestTableGolden pins the whole comparison table of the hand-checked
// fixture (testdata/compare.golden.txt; go test -update rewrites it).
func TestTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, compare(t)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "compare.golden.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestTableGolden -update ./report/ writes it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the table differs from %s:\n%s\nwant:\n%s", golden, got, want)
	}
}
