package lifecycle

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestJobFactsEntry: every field of the entry comes from the facts,
// those the rules make by them (MaxRunning, Borrows, InteractiveIn), the
// rest as they are.
func TestJobFactsEntry(t *testing.T) {
	lic := []sched.LicenseUse{{License: 1, Count: 2}}
	base := JobFacts{ID: "7", Pool: 1, Project: 2, Account: 3, Kind: sched.KindCommand, Submit: 100, Seq: 7,
		Priority: 50, Weight: 2, Slots: 4, MinSlots: 2, Tasks: 3, TimeLimit: 3600, GPU: "a100",
		Topology: sched.TopologyRequired, Licenses: lic, QOS: 1, Nice: 5}
	want := sched.Job{ID: "7", Pool: 1, Project: 2, Account: 3, Kind: sched.KindCommand, Submit: 100, Seq: 7,
		Priority: 50, Weight: 2, Slots: 4, MinSlots: 2, MaxRunning: 3, TimeLimit: 3600, GPU: "a100",
		Topology: sched.TopologyRequired, Licenses: lic, QOS: 1, Nice: 5}
	for _, c := range []struct {
		name   string
		change func(f *JobFacts)
		want   func(e *sched.Job)
	}{
		{"carried as they are", func(*JobFacts) {}, func(*sched.Job) {}},
		{"no project, no account", func(f *JobFacts) { f.Project, f.Account = -1, -1 },
			func(e *sched.Job) { e.Project, e.Account = -1, -1 }},
		{"max_concurrent caps the tasks", func(f *JobFacts) { f.MaxConcurrent = 2 }, func(e *sched.Job) { e.MaxRunning = 2 }},
		{"max_slots caps the tasks", func(f *JobFacts) { f.MaxSlots = 8 }, func(e *sched.Job) { e.MaxRunning = 2 }},
		{"no task runs one", func(f *JobFacts) { f.Tasks = 0 }, func(e *sched.Job) { e.MaxRunning = 1 }},
		{"LOW in a quota pool borrows", func(f *JobFacts) { f.Low, f.QuotaPool = true, true }, func(e *sched.Job) { e.Borrow = true }},
		{"LOW elsewhere does not", func(f *JobFacts) { f.Low = true }, func(*sched.Job) {}},
		{"NORMAL in a quota pool does not", func(f *JobFacts) { f.QuotaPool = true }, func(*sched.Job) {}},
		{"interactive kind", func(f *JobFacts) { f.Kind, f.Interactive = sched.KindNotebook, InteractiveKind(sched.KindNotebook) },
			func(e *sched.Job) { e.Kind, e.Interactive = sched.KindNotebook, true }},
		{"preemptible interactive kind is not", func(f *JobFacts) {
			f.Kind, f.Preemptible, f.Interactive = sched.KindShell, true, InteractiveKind(sched.KindShell)
		}, func(e *sched.Job) { e.Kind, e.Preemptible = sched.KindShell, true }},
		{"a scenario says interactive", func(f *JobFacts) { f.Interactive = true }, func(e *sched.Job) { e.Interactive = true }},
		{"a scenario says interactive, preemptible is not", func(f *JobFacts) { f.Interactive, f.Preemptible = true, true },
			func(e *sched.Job) { e.Preemptible = true }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, w := base, want
			c.change(&f)
			c.want(&w)
			if got := f.Entry(); !reflect.DeepEqual(got, w) {
				t.Errorf("Entry() =\n%+v\nwant\n%+v", got, w)
			}
		})
	}
}

// TestClassIn: a change of class gives what Entry gives facts of that
// class, for every class and either side of the LOW band.
func TestClassIn(t *testing.T) {
	for _, c := range []struct {
		name                       string
		class                      Class
		low                        bool
		preemptible, borrow, inter bool
	}{
		{"LOW in a quota pool", Class{QuotaPool: true}, true, true, true, false},
		{"LOW elsewhere", Class{}, true, true, false, false},
		{"out of LOW, preemptible", Class{Preemptible: true, QuotaPool: true}, false, true, false, false},
		{"out of LOW, interactive", Class{Interactive: true, QuotaPool: true}, false, false, false, true},
		{"into LOW, interactive no more", Class{Interactive: true}, true, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pre, borrow, inter := c.class.In(c.low)
			if pre != c.preemptible || borrow != c.borrow || inter != c.inter {
				t.Errorf("In(%v) = %v, %v, %v, want %v, %v, %v", c.low, pre, borrow, inter, c.preemptible, c.borrow, c.inter)
			}
		})
	}
	for i := range 16 {
		cl := Class{Preemptible: i&1 != 0, QuotaPool: i&2 != 0, Interactive: i&4 != 0}
		low := i&8 != 0
		t.Run(fmt.Sprintf("as Entry: %+v low=%v", cl, low), func(t *testing.T) {
			pre, borrow, inter := cl.In(low)
			f := JobFacts{Preemptible: pre, Low: low, QuotaPool: cl.QuotaPool, Interactive: cl.Interactive}
			if e := f.Entry(); e.Borrow != borrow || e.Interactive != inter {
				t.Errorf("Entry: borrow %v, interactive %v; In: %v, %v", e.Borrow, e.Interactive, borrow, inter)
			}
		})
	}
}

// TestInteractiveKind: the interactive kinds, which Interactive makes
// interactive unless preemptible.
func TestInteractiveKind(t *testing.T) {
	for _, c := range []struct {
		kind sched.Kind
		want bool
	}{
		{sched.KindNotebook, true}, {sched.KindShell, true}, {sched.KindTensorBoard, true},
		{sched.KindCommand, false}, {sched.KindExperiment, false},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			if got := InteractiveKind(c.kind); got != c.want {
				t.Errorf("InteractiveKind = %v, want %v", got, c.want)
			}
			if got := Interactive(c.kind, false); got != c.want {
				t.Errorf("Interactive(not preemptible) = %v, want %v", got, c.want)
			}
		})
	}
}
