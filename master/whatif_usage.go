package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// The fair-share usage of a history export. A replay starts at the
// window's start with no past of its own, while the live accounts carry
// the usage of everything before it, decayed per period with periods
// aligned to the Unix epoch (lifecycle.Usage). So the export declares
// each leaf (PROJECT/USER, the live master's leaves, "-" for jobs without
// a user) with its usage at the window's start, and sets the scenario's
// epoch to the start, so that the simulator's periods end where the
// master's do: a what-if of the unchanged history then gives the live
// usage at any instant of the window, to rounding.

// exportUsage sets sc's epoch and declares the leaves with usage at
// since, or with shares other than 1, in the master's order (project,
// then user). It reads the store's usage records as a master restart
// does (those within the decay's horizon), and measures them against
// the slots of the exported multifactor pools, the replay's capacity.
func (ca *clusterAPI) exportUsage(ctx context.Context, sc *scenario.Scenario, cfg *config.Config, since time.Time) ([]string, error) {
	if !usesFairShareAccounts(sc.Pools) {
		return nil, nil
	}
	sc.Epoch = since.Unix()
	notes := []string{"the accounts' leaves start with their live usage at " + since.Format(time.RFC3339) +
		", and epoch puts the decay's period boundaries where the live master's are; what jobs submitted before then used after it is not replayed"}
	capacity := 0
	for i := range sc.Pools {
		if sc.Pools[i].Policy == sched.PolicyMultifactor {
			capacity += poolSlots(&sc.Pools[i])
		}
	}
	for _, p := range cfg.Pools {
		if p.Policy == sched.PolicyMultifactor && p.Multifactor.FairShare == 0 {
			notes = append(notes, "pool "+p.Name+" is multifactor without a fair_share weight: live, its jobs' usage counts toward their leaves; replayed, it does not (its jobs name no account)")
		}
	}
	usage, err := ca.usageAt(ctx, cfg, since)
	if err != nil {
		return nil, err
	}
	leaves := map[leafKey]float64{}
	for k, u := range usage {
		if capacity > 0 && u > 0 {
			leaves[k] = u / float64(capacity)
		}
	}
	for _, j := range sc.Jobs {
		if j.Account != "" {
			if _, ok := leaves[leafKey{j.Account, j.User}]; !ok {
				leaves[leafKey{j.Account, j.User}] = 0
			}
		}
	}
	keys := make([]leafKey, 0, len(leaves))
	for k := range leaves {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b leafKey) int {
		return cmp.Or(cmp.Compare(cfg.ProjectIndex(a.project), cfg.ProjectIndex(b.project)), cmp.Compare(a.user, b.user))
	})
	for _, k := range keys {
		shares := 1.0
		if u, ok := cfg.User(k.user); ok {
			shares = u.Shares
		}
		if leaves[k] == 0 && shares == 1 {
			continue // the leaf a job makes is the same
		}
		sc.Accounts = append(sc.Accounts, scenario.Account{Name: scenario.UserAccount(k.project, k.user),
			Parent: k.project, Shares: shares, Usage: leaves[k]})
	}
	return notes, nil
}

// usageAt is each live leaf's decayed usage at t in slot-periods: the
// usage records of multifactor pools before t (the part before t of one
// that spans it), charged as the master charges them.
func (ca *clusterAPI) usageAt(ctx context.Context, cfg *config.Config, t time.Time) (map[leafKey]float64, error) {
	d := decayOf(cfg)
	ledger := lifecycle.NewUsage(d, 1, 0, cmpUsageKey)
	var from time.Time
	if h := usageHorizon(d); h > 0 {
		from = t.Add(-h)
	}
	end := t.Unix()
	for after := int64(0); ; {
		recs, err := ca.m.st.Usage(ctx, store.UsageFilter{Since: from, AfterID: after, Limit: usagePage})
		if err != nil {
			return nil, fmt.Errorf("read usage before %s: %w", t.Format(time.RFC3339), err)
		}
		for _, u := range recs {
			after = u.ID
			a, b := u.Start.Unix(), u.End.Unix()
			if a >= end || cfg.ProjectIndex(u.Project) < 0 {
				continue // after t, or of a project the master drops
			}
			if p, ok := cfg.Pool(u.Pool); !ok || p.Policy != sched.PolicyMultifactor {
				continue
			}
			secs := u.GPUSeconds
			if b > end {
				// Records spread their slot-seconds evenly over whole
				// seconds (lifecycle.Worth): the part before t.
				secs *= float64(end-a) / float64(b-a)
				b = end
			}
			ledger.Charge(usageKey{u.Pool, u.Project, leafOf(u.Project, u.User).user}, a, b, secs)
		}
		if len(recs) < usagePage {
			break
		}
	}
	ledger.Advance(end)
	out := map[leafKey]float64{}
	for _, k := range ledger.Keys() {
		out[leafKey{k.project, k.user}] += ledger.Get(k)
	}
	return out, nil
}
