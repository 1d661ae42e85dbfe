package lifecycle

import (
	"cmp"

	"github.com/allot-sched/allot/sched"
)

// BudgetWindow is the span of a project's preemption budget: an hour.
const BudgetWindow = 3600

// What a Cluster keeps for the snapshot's accounts and projects: each
// account's decayed usage, charged for every slot its jobs hold
// (checkpointing and draining slots included), and each budgeted
// project's recent preemptions and moves. The Cluster's transitions keep
// both current; a driver that learns of usage or preemptions otherwise
// (a restart reading them back) calls Hold and NoteBudget itself.

// ChargeAccounts makes jobs charge the accounts for the slots they hold:
// usage as lifecycle.Usage counts it, over decay, as a share of capacity
// slots, starting from each account's Usage. Without accounts or capacity
// nothing is charged. epoch is the ledger's time at the Cluster's time 0:
// periods end at multiples of the decay period in ledger time, so a
// driver whose time 0 is Unix time epoch ends them where the live master
// does.
func (c *Cluster) ChargeAccounts(decay sched.Decay, capacity int, accounts []sched.Account, epoch int64) {
	c.usage, c.usageAt, c.epoch = nil, 0, epoch
	if len(accounts) == 0 || capacity <= 0 {
		return
	}
	c.usage = NewUsage(decay, capacity, epoch, cmp.Compare[int32])
	for i, a := range accounts {
		c.usage.Add(int32(i), a.Usage)
	}
}

// Hold changes the slots held by jobs charging account a (< 0: none).
func (c *Cluster) Hold(a int32, slots int) {
	if c.usage != nil && a >= 0 {
		c.usage.Hold(a, slots)
	}
}

// Advance brings the accounts' usage up to time t and sets each account's
// Usage in acc (the snapshot's accounts, in the order given to
// ChargeAccounts).
func (c *Cluster) Advance(acc []sched.Account, t int64) {
	if c.usage == nil || t <= c.usageAt {
		return // nothing changed since the accounts were last set
	}
	c.usageAt = t
	c.usage.Advance(c.epoch + t)
	for i := range acc {
		acc[i].Usage = c.usage.Get(int32(i))
	}
}

// CountBudgets starts counting preemptions and moves for the projects
// with a preemption budget, over BudgetWindow.
func (c *Cluster) CountBudgets(projects []sched.Project) {
	c.budget, c.budgeted, c.anyBudget = NewBudget[int32](BudgetWindow), c.budgeted[:0], false
	for _, p := range projects {
		c.budgeted = append(c.budgeted, p.PreemptBudget > 0)
		c.anyBudget = c.anyBudget || p.PreemptBudget > 0
	}
}

// Budgeted reports whether project p (< 0: none) has a preemption budget,
// whose count a preemption or move of its tasks changes.
func (c *Cluster) Budgeted(p int32) bool {
	return p >= 0 && int(p) < len(c.budgeted) && c.budgeted[p]
}

// NoteBudget records a preemption or move of a task of project p at now,
// if p has a budget.
func (c *Cluster) NoteBudget(p int32, now int64) {
	if c.Budgeted(p) {
		c.budget.Note(p, now)
	}
}

// FillBudgets sets each project's count of preemptions and moves at now
// in ps (the snapshot's projects), when some project has a budget.
func (c *Cluster) FillBudgets(ps []sched.Project, now int64) {
	if !c.anyBudget {
		return
	}
	for i := range ps {
		ps[i].Preempted = c.budget.Count(int32(i), now)
	}
}
