package metrics

import (
	"math"
	"reflect"
	"testing"
)

func TestPercentile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		p    float64
		want float64
	}{
		{0, 1}, {10, 1}, {11, 2}, {50, 5}, {90, 9}, {91, 10}, {99, 10}, {100, 10},
	}
	for _, c := range cases {
		if got := Percentile(xs, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v (nearest rank)", c.p, got, c.want)
		}
	}
	if got := Percentile([]float64{42}, 99); got != 42 {
		t.Errorf("p99 of one sample = %v, want it", got)
	}
}

func TestSummarize(t *testing.T) {
	cases := []struct {
		name string
		xs   []float64
		want Dist
	}{
		{"empty", nil, Dist{}},
		{"unsorted", []float64{30, 10, 20, 40}, Dist{Mean: 25, P50: 20, P90: 40, P99: 40, Max: 40}},
		{"hundred", seq(100), Dist{Mean: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Summarize(c.xs); got != c.want {
				t.Errorf("Summarize = %+v, want %+v", got, c.want)
			}
		})
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

func TestBoundedSlowdown(t *testing.T) {
	cases := []struct {
		name          string
		response, run int64
		want          float64
	}{
		{"no wait", 100, 100, 1},
		{"waited as long as it ran", 200, 100, 2},
		{"short job counts as 10 s", 61, 1, 6.1},
		{"never below 1", 5, 5, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := BoundedSlowdown(c.response, c.run); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("BoundedSlowdown(%d, %d) = %v, want %v", c.response, c.run, got, c.want)
			}
		})
	}
}

func TestJain(t *testing.T) {
	cases := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"equal", []float64{2, 2, 2}, 1},
		{"one takes all of four", []float64{1, 0, 0, 0}, 0.25},
		{"half and half", []float64{1, 1, 0, 0}, 0.5},
		{"empty is fair", nil, 1},
		{"all zero is fair", []float64{0, 0}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Jain(c.xs); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("Jain(%v) = %v, want %v", c.xs, got, c.want)
			}
		})
	}
}

func TestMaxMinFair(t *testing.T) {
	cases := []struct {
		name     string
		capacity float64
		demands  []float64
		want     []float64
	}{
		{"equal split", 12, []float64{10, 10, 10}, []float64{4, 4, 4}},
		{"small demand gives its rest away", 12, []float64{2, 10, 10}, []float64{2, 5, 5}},
		{"everyone satisfied", 12, []float64{1, 2, 3}, []float64{1, 2, 3}},
		{"two levels", 10, []float64{1, 3, 100, 100}, []float64{1, 3, 3, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MaxMinFair(c.capacity, c.demands); !reflect.DeepEqual(got, c.want) {
				t.Errorf("MaxMinFair(%v, %v) = %v, want %v", c.capacity, c.demands, got, c.want)
			}
		})
	}
}

// TestCollectorShares: on 4 slots, project a holds 4 slots for 100 s
// while b waits with demand 4; then both hold 2 for 100 s. Each is
// entitled to 2 throughout: a gets 600 slot-s for 400 entitled (1.5), b
// 200 for 400 (0.5); Jain = (2)² / (2 × 2.5) = 0.8.
func TestCollectorShares(t *testing.T) {
	c := NewCollector(4, true)
	a, b := c.Project("a"), c.Project("b")
	c.Advance(0)
	c.Submitted(a)
	c.Submitted(b)
	c.Demand(a, 4)
	c.Demand(b, 4)
	c.Hold(a, 4)
	c.Queue(1)
	c.Advance(100)
	c.Hold(a, -2)
	c.Demand(a, -2)
	c.Hold(b, 2)
	c.Queue(-1)
	c.Advance(200)
	s := c.Summarize(200)
	want := []ProjectSummary{
		{Name: "a", Jobs: 1, SlotHours: Round(600.0/3600, 3), EntitledSlotHours: Round(400.0/3600, 3), ShareRatio: 1.5},
		{Name: "b", Jobs: 1, SlotHours: Round(200.0/3600, 3), EntitledSlotHours: Round(400.0/3600, 3), ShareRatio: 0.5},
	}
	if !reflect.DeepEqual(s.Projects, want) {
		t.Errorf("projects %+v, want %+v", s.Projects, want)
	}
	if s.Jain != 0.8 {
		t.Errorf("Jain = %v, want 0.8", s.Jain)
	}
	if s.AvgQueue != 0.5 || s.MaxQueue != 1 {
		t.Errorf("queue avg %v max %d, want 0.5 and 1", s.AvgQueue, s.MaxQueue)
	}
	sr := s.Series
	if sr == nil || sr.Step != 60 || len(sr.Utilization) != 4 {
		t.Fatalf("series %+v: want 4 one-minute steps", sr)
	}
	// Minute 2 (120–180 s) is all in the second phase: 2 + 2 of 4 slots.
	if sr.Utilization[0] != 1 || sr.Utilization[2] != 1 || sr.Queue[0] != 1 || sr.Queue[2] != 0 {
		t.Errorf("utilisation %v, queue %v", sr.Utilization, sr.Queue)
	}
	// The last step covers only 180–200 s and is averaged over that part.
	if sr.Projects[1].Name != "b" || sr.Projects[1].Slots[3] != 2 || sr.Projects[1].Entitled[3] != 2 {
		t.Errorf("project series %+v", sr.Projects)
	}
}

// TestSeriesStaysBounded: however long the run, the series keeps between
// MaxBuckets/2 and MaxBuckets steps, and its integrals survive merging.
func TestSeriesStaysBounded(t *testing.T) {
	for _, end := range []int64{3600, 86400, 400 * 86400} {
		c := NewCollector(10, true)
		p := c.Project("p")
		c.Advance(0)
		c.Demand(p, 5)
		c.Hold(p, 5)
		c.Advance(end / 3)
		c.Hold(p, -5)
		c.Demand(p, -5)
		c.Advance(end)
		sr := c.Summarize(end).Series
		n := len(sr.Utilization)
		if n > MaxBuckets || (end >= MaxBuckets*firstStep && n < MaxBuckets/2) {
			t.Errorf("run of %d s: %d steps of %d s", end, n, sr.Step)
		}
		sum := 0.0
		for _, u := range sr.Utilization {
			sum += u * float64(sr.Step)
		}
		if want := 0.5 * float64(end/3); math.Abs(sum-want) > 0.01*want {
			t.Errorf("run of %d s: utilisation integrates to %v slot-s/slot, want %v", end, sum, want)
		}
	}
}

func TestProjectCap(t *testing.T) {
	c := NewCollector(1, false)
	for i := range MaxProjects + 10 {
		c.Project(string(rune(0x4e00 + i)))
	}
	if len(c.projects) != MaxProjects || c.projects[MaxProjects-1].name != OtherProject {
		t.Errorf("%d projects, last %q; want %d ending with %q", len(c.projects), c.projects[len(c.projects)-1].name, MaxProjects, OtherProject)
	}
}
