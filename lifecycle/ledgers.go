package lifecycle

import (
	"cmp"

	"github.com/allot-sched/allot/sched"
)

// BudgetWindow is the span of a project's preemption budget: an hour.
const BudgetWindow = 3600

// Ledgers is what a Cluster keeps for the snapshot's accounts and
// projects: each account's decayed usage, charged for every slot its jobs
// hold (checkpointing and draining slots included; an attempt whose exit
// its agent reported late, only until the exit, once it ends:
// Task.ExitBefore, Uncharge), and each budgeted
// project's recent preemptions and moves. The Cluster's transitions keep
// both current; a driver that learns of usage or preemptions otherwise
// (a restart reading them back) calls Hold and NoteBudget itself.
type Ledgers struct {
	// usage holds the accounts' usage up to usageAt; epoch is the
	// ledger's time at the Cluster's time 0.
	usage   *Usage[int32]
	usageAt int64
	epoch   int64
	// budget counts the budgeted projects' preemptions and moves.
	budget    *Budget[int32]
	budgeted  []bool
	anyBudget bool
}

// ChargeAccounts makes the Cluster's jobs charge the accounts for the slots they hold:
// usage as lifecycle.Usage counts it, over decay, as a share of capacity
// slots, starting from each account's Usage. Without accounts or capacity
// nothing is charged. epoch is the ledger's time at the Cluster's time 0:
// periods end at multiples of the decay period in ledger time, so a
// driver whose time 0 is Unix time epoch ends them where the live master
// does.
func (l *Ledgers) ChargeAccounts(decay sched.Decay, capacity int, accounts []sched.Account, epoch int64) {
	l.usage, l.usageAt, l.epoch = nil, 0, epoch
	if len(accounts) == 0 || capacity <= 0 {
		return
	}
	l.usage = NewUsage(decay, capacity, epoch, cmp.Compare[int32])
	for i, a := range accounts {
		l.usage.Add(int32(i), a.Usage)
	}
}

// Hold changes the slots held by jobs charging account a (< 0: none).
func (l *Ledgers) Hold(a int32, slots int) {
	if l.usage != nil && a >= 0 {
		l.usage.Hold(a, slots)
	}
}

// Uncharge takes back what account a (< 0: none) was charged for slots
// it held over [from, to), as a usage record over that span decayed to
// to counts it (Worth, at the current capacity, as the master divides
// its records by the capacity of each snapshot), and sets the account's
// Usage in acc again: an attempt whose exit the master heard of late is
// charged until the exit, though it held its slots, and was charged for
// them, until the master heard of it (Task.ExitBefore). The usage is
// brought up to to first; rounding never leaves it below zero.
func (l *Ledgers) Uncharge(acc []sched.Account, a int32, slots int, from, to int64) {
	if l.usage == nil || a < 0 || slots <= 0 || to <= from {
		return
	}
	if to > l.usageAt {
		l.usageAt = to
		l.usage.Advance(l.epoch + to)
		for i := range acc {
			acc[i].Usage = l.usage.Get(int32(i))
		}
	}
	u := l.usage
	i := u.slot(a)
	back := Worth(u.decay, u.capacity, l.epoch+from, l.epoch+to, float64(slots)*float64(to-from), u.at)
	u.u[i] = max(u.u[i]-back, 0)
	if int(a) < len(acc) {
		acc[a].Usage = u.u[i]
	}
}

// SetCapacity makes the capacity usage is a share of capacity slots from
// time t on (a node deleted, or a deleted node back:
// InFairShareCapacity; a node reshaped, EventNodeReshape), and sets each account's Usage in acc again. The
// usage so far becomes a share of the new capacity, as the master's,
// which divides its slot-periods by the capacity of each snapshot. A
// capacity of 0 (every node of the multifactor pools deleted) changes
// nothing: no job there can run.
func (l *Ledgers) SetCapacity(acc []sched.Account, t int64, capacity int) {
	if l.usage == nil || capacity <= 0 || capacity == l.usage.capacity {
		return
	}
	l.usage.Advance(l.epoch + t)
	l.usage.setCapacity(capacity)
	l.usageAt = t
	for i := range acc {
		acc[i].Usage = l.usage.Get(int32(i))
	}
}

// Advance brings the accounts' usage up to time t and sets each account's
// Usage in acc (the snapshot's accounts, in the order given to
// ChargeAccounts).
func (l *Ledgers) Advance(acc []sched.Account, t int64) {
	if l.usage == nil || t <= l.usageAt {
		return // nothing changed since the accounts were last set
	}
	l.usageAt = t
	l.usage.Advance(l.epoch + t)
	for i := range acc {
		acc[i].Usage = l.usage.Get(int32(i))
	}
}

// CountBudgets starts counting preemptions and moves for the projects
// with a preemption budget, over BudgetWindow.
func (l *Ledgers) CountBudgets(projects []sched.Project) {
	l.budget, l.budgeted, l.anyBudget = NewBudget[int32](BudgetWindow), l.budgeted[:0], false
	for _, p := range projects {
		l.budgeted = append(l.budgeted, p.PreemptBudget > 0)
		l.anyBudget = l.anyBudget || p.PreemptBudget > 0
	}
}

// Budgeted reports whether project p (< 0: none) has a preemption budget,
// whose count a preemption or move of its tasks changes.
func (l *Ledgers) Budgeted(p int32) bool {
	return p >= 0 && int(p) < len(l.budgeted) && l.budgeted[p]
}

// NoteBudget records a preemption or move of a task of project p at now,
// if p has a budget.
func (l *Ledgers) NoteBudget(p int32, now int64) {
	if l.Budgeted(p) {
		l.budget.Note(p, now)
	}
}

// FillBudgets sets each project's count of preemptions and moves at now
// in ps (the snapshot's projects), when some project has a budget.
func (l *Ledgers) FillBudgets(ps []sched.Project, now int64) {
	if !l.anyBudget {
		return
	}
	for i := range ps {
		ps[i].Preempted = l.budget.Count(int32(i), now)
	}
}
