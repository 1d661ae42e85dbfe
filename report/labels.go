package report

import (
	"fmt"

	"github.com/allot-sched/allot/sim"
)

// Labels are the runs' configuration labels, in run order, as every
// writer shows them: sim.DescribeRuns over the runs' pools, so that a
// switch on in one run reads as off in another (priority/preemption
// beside priority/no-preemption), or each run's Policy where a run has no
// Config. Labels are unique: a run configured as an earlier one says
// which ("backfill/easy (same as easy)").
func (c *Comparison) Labels() []string {
	configs := make([][]sim.PoolConfig, len(c.Runs))
	described := true
	for i, r := range c.Runs {
		configs[i] = r.Config
		described = described && r.Config != nil
	}
	var labels []string
	if described {
		labels = sim.DescribeRuns(configs)
	} else {
		for _, r := range c.Runs {
			labels = append(labels, r.Policy)
		}
	}
	names := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		names[i] = r.Name
	}
	return uniqueLabels(labels, names)
}

// uniqueLabels makes each label unique: one that an earlier run has
// already says which run that is, the latest such (names are unique, so
// each of several alike says a different one), and a number besides in
// the unlikely case that that reads as another's label too.
func uniqueLabels(labels, names []string) []string {
	out := make([]string, len(labels))
	last := map[string]int{}
	taken := map[string]bool{}
	for i, l := range labels {
		if j, ok := last[l]; ok {
			l = fmt.Sprintf("%s (same as %s)", l, names[j])
		}
		last[labels[i]] = i
		base := l
		for n := 2; taken[l]; n++ {
			l = fmt.Sprintf("%s #%d", base, n)
		}
		taken[l] = true
		out[i] = l
	}
	return out
}
