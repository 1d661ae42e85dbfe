package sim

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/lifecycle/lifecycletest"
	"github.com/allot-sched/allot/sched"
)

// scriptDriver plays a lifecycletest script through the simulator's own
// fair-share usage and preemption budget (its lifecycle.Cluster's),
// set up and called as the engine does: usage advanced to each event
// before holdings change, the budget noted at each preemption and filled
// at each pass.
type scriptDriver struct {
	c        lifecycle.Cluster
	accounts []sched.Account
	projects []sched.Project
	account  map[string]int32 // leaf → account
	project  map[string]int32
	jobs     map[int][2]int32 // job → account, slots
}

func newScriptDriver(s lifecycletest.Script) *scriptDriver {
	d := &scriptDriver{account: map[string]int32{}, project: map[string]int32{}, jobs: map[int][2]int32{}}
	in := &Input{Decay: s.Decay}
	in.Pools = []Pool{{Pool: sched.Pool{Name: "p", Policy: sched.PolicyMultifactor},
		Nodes: []sched.Node{{Name: "n", Slots: s.Capacity}}}}
	for _, l := range s.Leaves {
		d.account[lifecycletest.Leaf(l[0], l[1])] = int32(len(in.Accounts))
		in.Accounts = append(in.Accounts, sched.Account{Name: lifecycletest.Leaf(l[0], l[1]), Parent: -1, Shares: 1})
	}
	for _, p := range s.Projects {
		d.project[p] = int32(len(in.Projects))
		in.Projects = append(in.Projects, Project{Project: sched.Project{Name: p, Parent: -1, PreemptBudget: 1}})
	}
	d.accounts = in.Accounts
	for _, p := range in.Projects {
		d.projects = append(d.projects, p.Project)
	}
	d.c.Ledgers.ChargeAccounts(in.Decay, chargedSlots(in, nil, nil, nil), in.Accounts, in.Epoch)
	d.c.Ledgers.CountBudgets(d.projects)
	return d
}

func (d *scriptDriver) Start(at int64, job int, project, user string, slots int) {
	a := d.account[lifecycletest.Leaf(project, user)]
	d.c.Ledgers.Advance(d.accounts, at)
	d.c.Ledgers.Hold(a, slots)
	d.jobs[job] = [2]int32{a, int32(slots)}
}

func (d *scriptDriver) End(at int64, job int) {
	d.c.Ledgers.Advance(d.accounts, at)
	d.c.Ledgers.Hold(d.jobs[job][0], -int(d.jobs[job][1]))
	delete(d.jobs, job)
}

func (d *scriptDriver) Preempt(at int64, project string) {
	d.c.Ledgers.NoteBudget(d.project[project], at)
}

func (d *scriptDriver) Look(at int64) lifecycletest.Seen {
	d.c.Ledgers.Advance(d.accounts, at)
	d.c.Ledgers.FillBudgets(d.projects, at)
	seen := lifecycletest.Seen{At: at, Usage: map[string]float64{}, Preempted: map[string]int{}}
	for _, a := range d.accounts {
		seen.Usage[a.Name] = a.Usage
	}
	for _, p := range d.projects {
		seen.Preempted[p.Name] = p.Preempted
	}
	return seen
}

// TestLifecycleScripts: the simulator's usage and budget give, for the
// scripts every driver plays, what the definitions say; master's
// TestLifecycleScripts shows the same of the master, so the two agree.
func TestLifecycleScripts(t *testing.T) {
	for name, s := range lifecycletest.Scripts() {
		got := lifecycletest.Run(s, newScriptDriver(s))
		if err := lifecycletest.Compare(got, lifecycletest.Want(s), 1e-12); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
