package spec

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
)

func TestPoolChanges(t *testing.T) {
	hpc := Pool{Name: "hpc", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.Placement("binpack"),
		KillGrace: 30 * time.Second, ZeroSlotLimit: 100, Line: 3}
	with := func(f func(p *Pool)) Pool { p := hpc; f(&p); return p }
	tests := []struct {
		name     string
		was, now []Pool
		want     []string
	}{
		{"nothing but a line moved", []Pool{hpc}, []Pool{with(func(p *Pool) { p.Line = 9 })}, nil},
		{"reservations (trial p F15)", []Pool{hpc}, []Pool{with(func(p *Pool) { p.Reservations = sched.ReserveConservative })},
			[]string{"pool hpc: reservations easy → conservative"}},
		{"two settings, as written", []Pool{hpc}, []Pool{with(func(p *Pool) { p.Preemption, p.KillGrace = true, 90*time.Minute })},
			[]string{"pool hpc: preemption false → true", "pool hpc: kill_grace 30s → 1h30m"}},
		{"a weight (trial 29h H2)", []Pool{hpc}, []Pool{with(func(p *Pool) { p.Multifactor.QOS = 1000 })},
			[]string{"pool hpc: multifactor qos 0 → 1000"}},
		{"weights and settings", []Pool{with(func(p *Pool) { p.Multifactor.Age, p.Multifactor.MaxAge = 1, 3600 })},
			[]Pool{with(func(p *Pool) {
				p.Multifactor = sched.Multifactor{Age: 0.5, MaxAge: 7200, FavorSmall: true, FairShareMode: "fair_tree", PoolPriority: 2}
			})},
			[]string{"pool hpc: multifactor age 1 → 0.5", "pool hpc: multifactor max_age 1h → 2h", "pool hpc: multifactor favor_small false → true",
				"pool hpc: multifactor fair_share_mode none → fair_tree", "pool hpc: multifactor pool_priority 0 → 2"}},
		{"added and removed", []Pool{hpc}, []Pool{{Name: "fs", Policy: sched.PolicyFairShare}},
			[]string{"pool fs added (policy fair_share)", "pool hpc removed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PoolChanges(tt.was, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("PoolChanges = %q, want %q", got, tt.want)
			}
		})
	}
}
