package sim_test

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// TestDescribeRuns: each run reads as what is on in it, and also as what
// is off or default where another run has it otherwise and it applies to
// the run's policy, so that runs that differ never read the same.
func TestDescribeRuns(t *testing.T) {
	pool := func(policy sched.Policy, mod func(c *sim.PoolConfig)) []sim.PoolConfig {
		c := sim.PoolConfig{Pool: "cluster", Policy: policy, Placement: sched.PlaceBinpack}
		if policy == sched.PolicyBackfill {
			c.Reservations = sched.ReserveEASY
		}
		if mod != nil {
			mod(&c)
		}
		return []sim.PoolConfig{c}
	}
	conservative := func(c *sim.PoolConfig) { c.Reservations = sched.ReserveConservative }
	preempt := func(c *sim.PoolConfig) { c.Preemption = true }
	backfill := func(c *sim.PoolConfig) { c.Backfill = true }
	spread := func(c *sim.PoolConfig) { c.Placement = sched.PlaceSpread }
	tests := []struct {
		name string
		runs [][]sim.PoolConfig
		want []string
	}{
		{"the textbook three", [][]sim.PoolConfig{pool(sched.PolicyFIFO, nil), pool(sched.PolicyBackfill, nil),
			pool(sched.PolicyBackfill, conservative)}, []string{"fifo", "backfill/easy", "backfill/conservative"}},
		{"alone, only what is on", [][]sim.PoolConfig{pool(sched.PolicyPriority, func(c *sim.PoolConfig) { preempt(c); backfill(c) })},
			[]string{"priority/preemption/backfill"}},
		{"preemption off beside on", [][]sim.PoolConfig{pool(sched.PolicyPriority, nil), pool(sched.PolicyPriority, preempt)},
			[]string{"priority/no-preemption", "priority/preemption"}},
		{"backfill off beside on", [][]sim.PoolConfig{pool(sched.PolicyPriority, preempt), pool(sched.PolicyPriority, func(c *sim.PoolConfig) { preempt(c); backfill(c) })},
			[]string{"priority/preemption/no-backfill", "priority/preemption/backfill"}},
		{"off where it cannot apply is not said", [][]sim.PoolConfig{pool(sched.PolicyFIFO, nil), pool(sched.PolicyPriority, preempt)},
			[]string{"fifo", "priority/preemption"}},
		{"serial off beside on", [][]sim.PoolConfig{pool(sched.PolicyFIFO, nil), pool(sched.PolicyFIFO, func(c *sim.PoolConfig) { c.Serial = true })},
			[]string{"fifo/no-serial", "fifo/serial"}},
		{"binpack beside spread", [][]sim.PoolConfig{pool(sched.PolicyBackfill, nil), pool(sched.PolicyBackfill, spread)},
			[]string{"backfill/easy/binpack", "backfill/easy/spread"}},
		{"spread alone", [][]sim.PoolConfig{pool(sched.PolicyBackfill, spread)}, []string{"backfill/easy/spread"}},
		{"checkpoint cost where it differs", [][]sim.PoolConfig{pool(sched.PolicyPriority, preempt),
			pool(sched.PolicyPriority, func(c *sim.PoolConfig) { preempt(c); c.CheckpointCost = 90 })},
			[]string{"priority/preemption/checkpoint_cost=0", "priority/preemption/checkpoint_cost=1m30s"}},
		{"multifactor's backfill mode", [][]sim.PoolConfig{pool(sched.PolicyMultifactor, func(c *sim.PoolConfig) {
			backfill(c)
			c.Reservations = sched.ReserveEASY
		})}, []string{"multifactor/backfill/easy"}},
		{"alike runs read alike", [][]sim.PoolConfig{pool(sched.PolicyBackfill, nil), pool(sched.PolicyBackfill, nil)},
			[]string{"backfill/easy", "backfill/easy"}},
		{"two pools, each named", [][]sim.PoolConfig{
			{{Pool: "research", Policy: sched.PolicyPriority, Placement: sched.PlaceBinpack, Backfill: true},
				{Pool: "batch", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack}},
			{{Pool: "research", Policy: sched.PolicyPriority, Placement: sched.PlaceBinpack},
				{Pool: "batch", Policy: sched.PolicyFIFO, Placement: sched.PlaceBinpack}}},
			[]string{"research: priority/backfill, batch: fifo", "research: priority/no-backfill, batch: fifo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sim.DescribeRuns(tt.runs); !slices.Equal(got, tt.want) {
				t.Errorf("DescribeRuns = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInputConfig: a pool's configuration is as the core reads it: an
// unset placement is binpack, a backfill pool's unset reservations EASY,
// and reservations where nothing reserves are none.
func TestInputConfig(t *testing.T) {
	in := &sim.Input{Pools: []sim.Pool{
		{Pool: sched.Pool{Name: "bf", Policy: sched.PolicyBackfill}},
		{Pool: sched.Pool{Name: "mf", Policy: sched.PolicyMultifactor, Backfill: true, Reservations: sched.ReserveConservative}},
		{Pool: sched.Pool{Name: "mf-nobf", Policy: sched.PolicyMultifactor, Reservations: sched.ReserveConservative}},
	}}
	got := in.Config()
	want := []sim.PoolConfig{
		{Pool: "bf", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack},
		{Pool: "mf", Policy: sched.PolicyMultifactor, Reservations: sched.ReserveConservative, Placement: sched.PlaceBinpack, Backfill: true},
		{Pool: "mf-nobf", Policy: sched.PolicyMultifactor, Placement: sched.PlaceBinpack},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Config = %+v\nwant %+v", got, want)
	}
}
