package sched

import (
	"math"
	"testing"
)

// TestAccountShares: seed 003's two users with equal shares, one of whom
// used 60% of the cluster: S = 0.5 each; classic P = S - U clamps at 0.
func TestAccountShares(t *testing.T) {
	s := &Snapshot{
		Pools: []Pool{{Name: "p", Policy: PolicyMultifactor, Multifactor: DefaultMultifactor()}},
		Nodes: []Node{{Name: "n", Pool: 0, Slots: 4}},
		Accounts: []Account{
			{Name: "lab", Parent: -1, Shares: 1},
			{Name: "lab/jack", Parent: 0, Shares: 1, Usage: 0.6},
			{Name: "lab/jill", Parent: 0, Shares: 1, Usage: 0.1},
		},
	}
	got, err := AccountShares(s, FairShareClassic)
	if err != nil {
		t.Fatal(err)
	}
	want := []AccountShare{{NormShares: 1, EffectiveUsage: 0.7, Factor: 0.3}, {NormShares: 0.5, EffectiveUsage: 0.6},
		{NormShares: 0.5, EffectiveUsage: 0.1, Factor: 0.4}}
	for i := range want {
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"norm shares", got[i].NormShares, want[i].NormShares},
			{"effective usage", got[i].EffectiveUsage, want[i].EffectiveUsage},
			{"factor", got[i].Factor, want[i].Factor},
		} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("%s %s = %v, want %v", s.Accounts[i].Name, c.name, c.got, c.want)
			}
		}
	}
	if _, err := AccountShares(&Snapshot{Accounts: []Account{{Name: "x", Parent: 5}}}, FairShareClassic); err == nil {
		t.Error("a bad tree was accepted")
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tt := range []struct {
		secs int64
		want string
	}{{-5, "0s"}, {0, "0s"}, {45, "45s"}, {60, "1m"}, {125, "2m 5s"}, {3600, "1h"}, {7800, "2h 10m"},
		{86400, "1d"}, {3*86400 + 4*3600 + 59, "3d 4h"}} {
		t.Run(tt.want, func(t *testing.T) {
			if got := HumanDuration(tt.secs); got != tt.want {
				t.Errorf("HumanDuration(%d) = %q, want %q", tt.secs, got, tt.want)
			}
		})
	}
}

// TestForecastScaled: with jobs running half their limits, the waiting job
// starts when the running one's half is over; a running task whose half is
// already over ends at once.
func TestForecastScaled(t *testing.T) {
	s := &Snapshot{
		Now:   1000,
		Pools: []Pool{{Name: "p", Policy: PolicyFIFO}},
		Nodes: []Node{{Name: "n", Pool: 0, Slots: 4}},
		Jobs: []Job{
			{ID: "run", Pool: 0, Slots: 4, TimeLimit: 3600, MaxRunning: 1, Weight: 1},
			{ID: "wait", Pool: 0, Slots: 4, TimeLimit: 600, Waiting: 1, MaxRunning: 1, Submit: 900, Seq: 2, Weight: 1},
		},
		Allocs: []Alloc{{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 4}}, Start: 0}},
	}
	for _, tt := range []struct {
		name  string
		scale float64
		want  int64
	}{
		{"limits", 1, 3600},
		{"half the limits", 0.5, 1800},
		{"a tenth: the running task is past it", 0.1, 1001},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForecastScaled(s, tt.scale)[1]; got != tt.want {
				t.Errorf("start %d, want %d", got, tt.want)
			}
		})
	}
	if s.Jobs[0].TimeLimit != 3600 || s.Allocs[0].Start != 0 {
		t.Error("the forecast changed its snapshot")
	}
}
