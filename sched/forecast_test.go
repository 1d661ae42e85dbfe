package sched

import "testing"

// TestForecastPlaysOutPreemption: under a preemptive priority pool a
// waiting job the core would preempt for is forecast to start at once,
// not when its victim's time limit runs out (the victim, which was not
// waiting, gets no estimate); without preemption the estimate stays the
// victim's end. The snapshot is not changed.
func TestForecastPlaysOutPreemption(t *testing.T) {
	snap := func(preemption bool) *Snapshot {
		return &Snapshot{
			Now:   1000,
			Pools: []Pool{{Name: "p", Policy: PolicyPriority, Preemption: preemption}},
			Nodes: []Node{{Name: "n", Pool: 0, Slots: 4}},
			Jobs: []Job{
				{ID: "low", Pool: 0, Slots: 4, TimeLimit: 7200, MaxRunning: 1, Weight: 1, Priority: 80, Preemptible: true, Seq: 1},
				{ID: "high", Pool: 0, Slots: 4, TimeLimit: 600, Waiting: 1, MaxRunning: 1, Weight: 1, Priority: 10, Submit: 900, Seq: 2},
			},
			Allocs: []Alloc{{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 4}}, Start: 0}},
		}
	}
	for _, tt := range []struct {
		name       string
		preemption bool
		want       map[int]int64
	}{
		{"preemption: the urgent job starts now", true, map[int]int64{1: 1000}},
		{"no preemption: it waits for the time limit", false, map[int]int64{1: 7200}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := snap(tt.preemption)
			got := Forecast(s)
			if len(got) != len(tt.want) || got[1] != tt.want[1] {
				t.Errorf("forecast %v, want %v", got, tt.want)
			}
			if len(s.Allocs) != 1 || s.Jobs[0].Waiting != 0 || s.Jobs[1].Waiting != 1 {
				t.Error("the forecast changed its snapshot")
			}
		})
	}
}

// TestForecastWaitsForCheckpoint: a task already preempting lets go of
// its slots at its checkpoint's deadline (Alloc.FreeBy), or at its time
// limit if that comes first; one whose deadline is unknown or past frees
// them at once, never before the snapshot's now.
func TestForecastWaitsForCheckpoint(t *testing.T) {
	snap := func(freeBy int64) *Snapshot {
		return &Snapshot{
			Now:   1000,
			Pools: []Pool{{Name: "p", Policy: PolicyPriority, Preemption: true}},
			Nodes: []Node{{Name: "n", Pool: 0, Slots: 4}},
			Jobs: []Job{
				{ID: "victim", Pool: 0, Slots: 4, TimeLimit: 7200, MaxRunning: 1, Weight: 1, Priority: 80, Preemptible: true, Seq: 1},
				{ID: "taker", Pool: 0, Slots: 4, TimeLimit: 600, Waiting: 1, MaxRunning: 1, Weight: 1, Priority: 10, Submit: 990, Seq: 2},
			},
			Allocs: []Alloc{{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 4}}, Start: 0, Preempting: true, FreeBy: freeBy}},
		}
	}
	for _, tt := range []struct {
		name   string
		freeBy int64
		want   int64
	}{
		{"deadline ahead: starts when the grace ends", 1020, 1020},
		{"deadline unknown: as good as free", 0, 1000},
		{"deadline past: now, not then", 990, 1000},
		{"time limit before the deadline: at the limit", 9000, 7200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := snap(tt.freeBy)
			got, ok := Forecast(s)[1]
			if !ok || got != tt.want {
				t.Errorf("taker forecast at %d (%v), want %d", got, ok, tt.want)
			}
			if s.Allocs[0].FreeBy != tt.freeBy {
				t.Error("the forecast changed its snapshot")
			}
		})
	}
}
