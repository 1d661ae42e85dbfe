package sim

import (
	"slices"
	"strings"

	"github.com/allot-sched/allot/sched"
)

// PoolConfig is what a run's Settings can change in one pool, as the pool
// behaves: the switches that tell the runs of a comparison apart. Its JSON
// form is part of allot sim compare's --json.
type PoolConfig struct {
	Pool   string       `json:"pool"`
	Policy sched.Policy `json:"policy"`
	// Reservations is the backfill mode where the pool backfills with
	// reservations (policy backfill, or multifactor with backfill), easy
	// when the pool leaves it unset, as the core reads it; else empty.
	Reservations sched.Reservations `json:"reservations,omitempty"`
	// Placement is binpack when the pool leaves it unset.
	Placement  sched.Placement `json:"placement"`
	Serial     bool            `json:"serial"`
	Preemption bool            `json:"preemption"`
	Backfill   bool            `json:"backfill"`
	// CheckpointCost is in seconds.
	CheckpointCost int64 `json:"checkpoint_cost"`
}

// Config gives each pool's configuration, in the input's pool order.
func (in *Input) Config() []PoolConfig { return poolConfigs(in.Pools) }

func poolConfigs(pools []Pool) []PoolConfig {
	out := make([]PoolConfig, len(pools))
	for i := range pools {
		p := &pools[i]
		c := PoolConfig{Pool: p.Name, Policy: p.Policy, Placement: p.Placement, Serial: p.Serial,
			Preemption: p.Preemption, Backfill: p.Backfill, CheckpointCost: p.CheckpointCost}
		if c.Placement == "" {
			c.Placement = sched.PlaceBinpack
		}
		if reserves(&c) {
			c.Reservations = sched.ReserveEASY
			if p.Reservations == sched.ReserveConservative {
				c.Reservations = sched.ReserveConservative
			}
		}
		out[i] = c
	}
	return out
}

// reserves tells a pool that backfills behind reservations, whose mode
// (sched's declare) is conservative or else EASY.
func reserves(c *PoolConfig) bool {
	return c.Policy == sched.PolicyBackfill || (c.Policy == sched.PolicyMultifactor && c.Backfill)
}

// A toggle is an on/off switch of a pool, and the policies it applies to
// (checkPool's rules).
type toggle struct {
	name     string
	on       func(c *PoolConfig) bool
	policies []sched.Policy
}

// toggles are in the order labels name them: fifo/serial,
// priority/preemption/backfill.
var toggles = []toggle{
	{"serial", func(c *PoolConfig) bool { return c.Serial }, []sched.Policy{sched.PolicyFIFO}},
	{"preemption", func(c *PoolConfig) bool { return c.Preemption },
		[]sched.Policy{sched.PolicyPriority, sched.PolicyFairShare, sched.PolicyMultifactor}},
	{"backfill", func(c *PoolConfig) bool { return c.Backfill }, []sched.Policy{sched.PolicyPriority, sched.PolicyMultifactor}},
}

// DescribeRuns labels the configuration of each of several runs of one
// workload: runs[i] holds run i's pools, in the same order in every run.
// A pool reads as its policy, then what is on (serial, preemption,
// backfill), its backfill mode (easy or conservative), and spread
// placement: backfill/easy, priority/preemption/backfill. So that two runs
// that differ read differently, a pool also names what is off or default
// where another run's same pool has it otherwise, and the switch applies
// to its policy: priority/no-preemption beside priority/preemption,
// binpack beside spread, and checkpoint_cost=30s beside any other cost.
// With several pools each entry names its pool (research: fifo, batch:
// fifo), so that one policy given to every pool does not read as a list
// of the same word. Runs configured alike get the same label.
func DescribeRuns(runs [][]PoolConfig) []string {
	out := make([]string, len(runs))
	for r, pools := range runs {
		parts := make([]string, len(pools))
		for i := range pools {
			var others []*PoolConfig
			for o := range runs {
				if o != r && i < len(runs[o]) {
					others = append(others, &runs[o][i])
				}
			}
			parts[i] = describePool(&pools[i], others)
			if len(pools) > 1 {
				parts[i] = pools[i].Pool + ": " + parts[i]
			}
		}
		out[r] = strings.Join(parts, ", ")
	}
	return out
}

// describePool labels pool c, beside the same pool in the other runs.
func describePool(c *PoolConfig, others []*PoolConfig) string {
	words := []string{string(c.Policy)}
	anyOther := func(f func(o *PoolConfig) bool) bool {
		for _, o := range others {
			if f(o) {
				return true
			}
		}
		return false
	}
	for _, t := range toggles {
		switch {
		case t.on(c):
			words = append(words, t.name)
		case slices.Contains(t.policies, c.Policy) && anyOther(t.on):
			words = append(words, "no-"+t.name)
		}
	}
	if c.Reservations != "" {
		words = append(words, string(c.Reservations))
	}
	if c.Placement != sched.PlaceBinpack || anyOther(func(o *PoolConfig) bool { return o.Placement != c.Placement }) {
		words = append(words, string(c.Placement))
	}
	if anyOther(func(o *PoolConfig) bool { return o.CheckpointCost != c.CheckpointCost }) {
		words = append(words, "checkpoint_cost="+Clock(c.CheckpointCost))
	}
	return strings.Join(words, "/")
}
