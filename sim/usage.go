package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// ProjectResult is one quota project's use of its pool over a run.
type ProjectResult struct {
	Name string `json:"name"`
	// Kind is "project" for a project of the input, or "pool" for a
	// pool's own quota (pools that share nodes).
	Kind            string  `json:"kind"`
	Parent          string  `json:"parent,omitempty"`
	Quota           int     `json:"quota"`
	OverQuotaWeight float64 `json:"over_quota_weight"`
	Limit           int     `json:"limit,omitempty"`
	// GPUSeconds is the integral of the slots its jobs held (borrowing
	// work and checkpointing time included); a parent's is its children's.
	GPUSeconds int64 `json:"gpu_seconds"`
	// Held is a step series: from each step's time until the next, the
	// project held Slots slots, Borrowing of them by borrowing (LOW-class)
	// work that counts toward no quota. It starts at 0 and has a step only
	// where the numbers change. It is recorded with the timeline.
	Held []HeldStep `json:"held,omitempty"`
}

// HeldStep is one step of a project's holdings.
type HeldStep struct {
	Time      int64 `json:"time"`
	Slots     int   `json:"slots"`
	Borrowing int   `json:"borrowing,omitempty"`
}

// Project kinds in results.
const (
	ProjectKindProject = "project"
	ProjectKindPool    = "pool"
)

// usage follows each project's held slots; a parent holds what its
// children hold.
type usage struct {
	parent  []int32
	held    []int
	borrow  []int
	secs    []int64
	last    int64
	steps   [][]HeldStep
	changed []bool
	dirty   bool
	series  bool
}

func (u *usage) init(ps []Project, series bool) {
	n := len(ps)
	u.parent = make([]int32, n)
	for i := range ps {
		u.parent[i] = int32(ps[i].Parent)
	}
	u.held, u.borrow, u.secs = make([]int, n), make([]int, n), make([]int64, n)
	u.changed = make([]bool, n)
	u.series = series
	if series {
		u.steps = make([][]HeldStep, n)
	}
}

// advance integrates the holdings up to t.
func (u *usage) advance(t int64) {
	if t > u.last {
		for i, h := range u.held {
			u.secs[i] += int64(h) * (t - u.last)
		}
	}
	u.last = t
}

// hold changes the slots project p (and its parents) holds; p < 0 is no
// project.
func (u *usage) hold(p int32, slots int, borrow bool) {
	for ; p >= 0; p = u.parent[p] {
		u.held[p] += slots
		if borrow {
			u.borrow[p] += slots
		}
		u.changed[p] = true
		u.dirty = true
	}
}

// settled records a step for each project whose holdings changed at now;
// an instant settled twice keeps its last numbers.
func (u *usage) settled(now int64) {
	if !u.dirty {
		return
	}
	u.dirty = false
	for p, ch := range u.changed {
		if !ch {
			continue
		}
		u.changed[p] = false
		if !u.series {
			continue
		}
		st := HeldStep{Time: now, Slots: u.held[p], Borrowing: u.borrow[p]}
		steps := u.steps[p]
		n := len(steps)
		if n > 0 && steps[n-1].Time == now {
			steps = steps[:n-1]
			n--
		}
		prev := HeldStep{}
		if n > 0 {
			prev = steps[n-1]
		}
		if st.Slots != prev.Slots || st.Borrowing != prev.Borrowing {
			steps = append(steps, st)
		}
		u.steps[p] = steps
	}
}

// results reports every project; nil when there are none.
func (u *usage) results(ps []Project) []ProjectResult {
	if len(ps) == 0 {
		return nil
	}
	out := make([]ProjectResult, len(ps))
	for i := range ps {
		p := &ps[i]
		r := ProjectResult{Name: p.Name, Kind: ProjectKindProject, Quota: p.Quota,
			OverQuotaWeight: p.OverQuotaWeight, Limit: p.Limit, GPUSeconds: u.secs[i]}
		if p.Pool {
			r.Kind = ProjectKindPool
		}
		if p.Parent >= 0 {
			r.Parent = ps[p.Parent].Name
		}
		if u.series {
			r.Held = u.steps[i]
		}
		out[i] = r
	}
	return out
}

// AccountResult is one fair-share account when the run stopped.
type AccountResult struct {
	Name   string  `json:"name"`
	Parent string  `json:"parent,omitempty"`
	Shares float64 `json:"shares"`
	// Usage is the account's own decayed usage (its sub-accounts' not
	// included), as a share of the multifactor pools' capacity over one
	// decay period.
	Usage float64 `json:"usage"`
}

// accountResults reports every account; nil when there are none.
func accountResults(as []sched.Account) []AccountResult {
	if len(as) == 0 {
		return nil
	}
	out := make([]AccountResult, len(as))
	for i, a := range as {
		out[i] = AccountResult{Name: a.Name, Shares: a.Shares, Usage: round(a.Usage, 9)}
		if a.Parent >= 0 {
			out[i].Parent = as[a.Parent].Name
		}
	}
	return out
}

// accountFairness makes the collector compute the accounts' fairness
// (metrics.Collector.Accounts), when the input has accounts.
func (r *recorder) accountFairness(as []sched.Account, pools int) {
	if len(as) == 0 {
		return
	}
	names, parents, shares := make([]string, len(as)), make([]int32, len(as)), make([]float64, len(as))
	for i, a := range as {
		names[i], parents[i], shares[i] = a.Name, int32(a.Parent), a.Shares
	}
	r.col.Accounts(names, parents, shares)
	r.acctPools = make([]bool, pools)
}

// chargePool notes that a job charging an account was submitted to pool
// p: its slots join the capacity the accounts' entitlements share.
func (r *recorder) chargePool(p int) {
	if r.acctPools != nil && !r.acctPools[p] {
		r.acctPools[p] = true
		r.accountSlots()
	}
}

// accountSlots sets the capacity the accounts' entitlements share: the
// slots of the pools that jobs charging accounts were submitted to,
// counted as chargedSlots counts the multifactor pools' (deleted nodes
// out, reshaped ones with their new slots, in the pool they are in
// now). It is the multifactor pools' capacity in a run of the scenario's
// own settings, and the same slots in a run of a preset (fcfs, easy)
// that gives those pools another policy, so that the runs compare.
func (r *recorder) accountSlots() {
	if r.acctPools == nil {
		return
	}
	s := r.s
	capacity, i := 0, int32(0)
	for pi, p := range s.in.Pools {
		for _, n := range p.Nodes {
			pool := pi
			if to, ok := s.moved[i]; ok {
				pool = to
			}
			slots, ok := s.own[i]
			if !ok {
				slots = n.Slots
			}
			if r.acctPools[pool] && lifecycle.InFairShareCapacity(s.gone[i]) {
				capacity += slots
			}
			i++
		}
	}
	r.col.AccountSlots(capacity)
}
