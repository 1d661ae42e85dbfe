package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/yamlfield"
)

// resolveSharing checks every shares_nodes_with and gives each sharing
// pool the policy, placement, checkpoint cost and size of the pool whose
// nodes it shares. Pools that share nodes are OSMO pools: each has a
// quota, the quotas fit in the shared capacity, and the nodes' pool runs
// the quota policy.
func (p *parser) resolveSharing(pools []Pool) {
	quotaSum := map[string]int{}
	for i := range pools {
		pl := &pools[i]
		info := p.pools[pl.Name]
		if pl.SharesNodesWith == "" || info == nil {
			continue
		}
		path := fmt.Sprintf("pools[%d] %s: shares_nodes_with", i, yamlfield.Quote(pl.Name))
		owner, ok := p.sharedOwner(pools, pl, info, path)
		if !ok {
			info.clean = false
			continue
		}
		oi := p.pools[owner.Name]
		pl.Policy, pl.Placement, pl.CheckpointCost = owner.Policy, owner.Placement, owner.CheckpointCost
		info.policy, info.capacity, info.gpus = oi.policy, oi.capacity, oi.gpus
		info.largest, info.largestOf = oi.largest, oi.largestOf
		info.clean = info.clean && oi.clean
		if pl.Quota < 0 {
			p.ErrorAt(pl.Line, fmt.Sprintf("pools[%d] %s", i, yamlfield.Quote(pl.Name)), nil,
				"missing required field \"quota\": a pool that shares nodes has a quota within them")
		} else {
			quotaSum[owner.Name] += pl.Quota
		}
	}
	for i := range pools {
		owner := &pools[i]
		sum, shared := quotaSum[owner.Name]
		oi := p.pools[owner.Name]
		if !shared || oi == nil {
			continue
		}
		path := fmt.Sprintf("pools[%d] %s", i, yamlfield.Quote(owner.Name))
		if owner.Quota < 0 {
			p.ErrorAt(owner.Line, path, nil, "missing required field \"quota\": other pools share this pool's nodes, so each has a quota within them")
			continue
		}
		if sum += owner.Quota; oi.clean && sum > oi.capacity {
			p.ErrorAt(owner.Line, path+": quota", nil, "the quotas of the pools sharing these nodes add up to %d, more than their %d slots", sum, oi.capacity)
		}
	}
}

// sharedOwner finds the pool whose nodes pl shares and checks that it can
// be shared.
func (p *parser) sharedOwner(pools []Pool, pl *Pool, info *poolInfo, path string) (*Pool, bool) {
	if pl.SharesNodesWith == pl.Name {
		p.ErrorAt(info.sharesAt, path, nil, "a pool cannot share its own nodes")
		return nil, false
	}
	var owner *Pool
	for i := range pools {
		if pools[i].Name == pl.SharesNodesWith {
			owner = &pools[i]
			break
		}
	}
	switch {
	case owner == nil:
		if p.PoolsKnown {
			p.ErrorAt(info.sharesAt, path, nil, "unknown pool %s%s (pools: %s)", yamlfield.Quote(pl.SharesNodesWith),
				yamlfield.Suggest(pl.SharesNodesWith, p.PoolOrder), yamlfield.OneOf(p.PoolOrder))
		}
		return nil, false
	case owner.SharesNodesWith != "":
		p.ErrorAt(info.sharesAt, path, nil, "pool %s shares the nodes of pool %s itself; name %s",
			yamlfield.Quote(owner.Name), yamlfield.Quote(owner.SharesNodesWith), yamlfield.Quote(owner.SharesNodesWith))
		return nil, false
	case owner.Policy == "":
		return nil, false // its policy has an error of its own
	case owner.Policy != PolicyQuota:
		p.ErrorAt(info.sharesAt, path, nil, "pools that share nodes divide them by quota, so pool %s needs policy: quota, not %s",
			yamlfield.Quote(owner.Name), owner.Policy)
		return nil, false
	}
	return owner, true
}

// checkTrace rejects jobs from a trace in a quota pool or a multifactor
// pool with a fair-share weight: their jobs need projects or accounts,
// and a trace's jobs name none that the file declares.
func (p *parser) checkTrace(s *Scenario) {
	if s.Trace == nil {
		return
	}
	info := p.pools[p.firstPool()]
	switch {
	case info == nil:
	case info.policy == PolicyQuota:
		p.ErrorAt(s.Trace.Line, "jobs: trace", nil,
			"not supported yet: jobs from a trace go to pool %s, a quota pool, whose jobs need projects that trace jobs do not name",
			yamlfield.Quote(p.firstPool()))
	case info.fs:
		p.ErrorAt(s.Trace.Line, "jobs: trace", nil,
			"not supported yet: jobs from a trace go to pool %s, a multifactor pool with a fair_share weight, whose jobs need accounts that trace jobs do not name",
			yamlfield.Quote(p.firstPool()))
	}
}
