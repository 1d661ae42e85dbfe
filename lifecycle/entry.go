package lifecycle

import "github.com/allot-sched/allot/sched"

// JobFacts are what a driver knows of a job, resolved against its
// configuration (indexes, not names), from which Entry builds the job's
// snapshot entry. The master fills them from its store record and job
// file (master/snapshot.go's snapJob), the simulator from a scenario's or
// a trace's job (sim/apply.go's snapEntry); each keeps its own model of
// a job, and the entry both give the core is made here, by one set of
// rules.
type JobFacts struct {
	ID   string
	Pool int
	// Project and Account index the snapshot's projects and accounts,
	// -1 for none (a project no longer configured). The core reads a
	// project in quota pools, where the driver must resolve it, and for
	// a preemption budget, where none is none; an account only in
	// multifactor pools that weigh fair share.
	Project, Account int
	Kind             sched.Kind
	Submit, Seq      int64
	Priority         int
	Weight           float64
	// Preemptible is the job's preemptibility in its priority class, as
	// the driver keeps it (PreemptibleIn on a change of class).
	Preemptible bool
	Slots       int
	MinSlots    int
	// Tasks, MaxConcurrent (0: no cap) and MaxSlots (0: no cap; a
	// scenario's job has none) say how many tasks may run at once
	// (MaxRunning).
	Tasks, MaxConcurrent, MaxSlots int
	TimeLimit                      int64
	GPU                            string
	Topology                       sched.Topology
	// Licenses are what each task holds while it runs, in the
	// snapshot's order (by index): the core names the first that a job
	// is short of, so both drivers must list them alike.
	Licenses  []sched.LicenseUse
	QOS, Nice int
	// Low says the job is LOW-class work and QuotaPool that its pool
	// divides slots by quota: such work borrows (Borrows).
	Low, QuotaPool bool
	// Interactive is whether the job is interactive unless it is
	// preemptible (InteractiveIn): its kind's (InteractiveKind), or what
	// a scenario's job says, explicitly or by the same default.
	Interactive bool
	// OnHold: the job is held (onhold.go), and stays out of the pass
	// (LeftOut).
	OnHold bool
}

// InteractiveKind reports whether jobs of kind are interactive when they
// are not preemptible: notebooks, shells and TensorBoards (Interactive).
func InteractiveKind(kind sched.Kind) bool {
	return kind == sched.KindNotebook || kind == sched.KindShell || kind == sched.KindTensorBoard
}

// Entry is the job's snapshot entry but for what changes from pass to
// pass (Waiting, Reserved, ReservedNodes, Rev), which its driver keeps.
// Every field the core reads of a job is set here, so that the master
// and the simulator cannot compute one apart: how many tasks may run at
// once (MaxRunning), whether it borrows (Borrows) and whether it is
// interactive (InteractiveIn; a preemptible job never is). The entry
// shares f's Licenses.
func (f *JobFacts) Entry() sched.Job {
	return sched.Job{
		ID:          f.ID,
		Pool:        f.Pool,
		Kind:        f.Kind,
		Submit:      f.Submit,
		Seq:         f.Seq,
		Priority:    f.Priority,
		Weight:      f.Weight,
		Preemptible: f.Preemptible,
		Slots:       f.Slots,
		MinSlots:    f.MinSlots,
		MaxRunning:  MaxRunning(f.Tasks, f.MaxConcurrent, f.Slots, f.MaxSlots),
		TimeLimit:   f.TimeLimit,
		GPU:         f.GPU,
		Project:     f.Project,
		Interactive: InteractiveIn(f.Preemptible, f.Interactive),
		Borrow:      Borrows(f.Low, f.QuotaPool),
		Topology:    f.Topology,
		Account:     f.Account,
		QOS:         f.QOS,
		Nice:        f.Nice,
		Licenses:    f.Licenses,
	}
}

// Class is what a job is outside the LOW priority class, and whether its
// pool divides slots by quota: what a change of its priority across the
// LOW band needs to say what it becomes (In). The simulator keeps one
// per scenario job (sim's ClassRule); the master has the same facts in
// its job file's hints and its pool.
type Class struct {
	// Preemptible is the job's preemptibility outside LOW
	// (PreemptibleOutsideLow).
	Preemptible bool
	// QuotaPool: the job's pool divides slots by quota, so LOW work
	// borrows there.
	QuotaPool bool
	// Interactive is the job's interactivity outside LOW; in LOW, where
	// it is preemptible, it is not interactive.
	Interactive bool
}

// In is what a job of class c is in LOW (low) or outside it: its
// preemptibility (PreemptibleIn) and, from it, the borrowing and
// interactivity that Entry gives facts of that class (Borrows,
// InteractiveIn).
func (c Class) In(low bool) (preemptible, borrow, interactive bool) {
	preemptible = PreemptibleIn(low, c.Preemptible)
	return preemptible, Borrows(low, c.QuotaPool), InteractiveIn(preemptible, c.Interactive)
}
