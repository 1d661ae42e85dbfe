package lifecycletest

import (
	"fmt"
	"math"
	"slices"

	"github.com/allot-sched/allot/sched"
)

// Kind is what an event does.
type Kind int

const (
	// Start: job Job of (Project, User) starts holding Slots.
	Start Kind = iota
	// End: job Job stops holding its slots.
	End
	// Preempt: a task of Project is preempted (or moved).
	Preempt
	// Look: the driver reports usage and preemption counts.
	Look
)

// Event is one event at time At (seconds).
type Event struct {
	At      int64
	Kind    Kind
	Job     int
	Project string
	User    string
	Slots   int
}

// Leaf names a fair-share leaf as Seen reports it: "project/user".
func Leaf(project, user string) string { return project + "/" + user }

// Seen is what a driver reports at a Look.
type Seen struct {
	At        int64
	Usage     map[string]float64 // per leaf, a share of Capacity over one period
	Preempted map[string]int     // per project, within Window
}

// Script is a sequence of events, in time order, and the settings they
// play under.
type Script struct {
	Decay    sched.Decay
	Capacity int   // slots usage is measured against
	Window   int64 // the preemption budget's span, in seconds
	Leaves   [][2]string
	Projects []string
	Events   []Event
}

// Driver is one user of lifecycle (the master, the simulator).
type Driver interface {
	Start(at int64, job int, project, user string, slots int)
	End(at int64, job int)
	Preempt(at int64, project string)
	Look(at int64) Seen
}

// Run plays s through d and returns what each Look saw.
func Run(s Script, d Driver) []Seen {
	var out []Seen
	for _, e := range s.Events {
		switch e.Kind {
		case Start:
			d.Start(e.At, e.Job, e.Project, e.User, e.Slots)
		case End:
			d.End(e.At, e.Job)
		case Preempt:
			d.Preempt(e.At, e.Project)
		case Look:
			out = append(out, d.Look(e.At))
		}
	}
	return out
}

// Want is what each Look of s must see, from the definitions: a leaf's
// usage at t is Σ over periods k ≤ ⌊t/P⌋ of what it used in period k (up
// to t), over Capacity·P, times the decay over ⌊t/P⌋ − k periods; a
// project's count is its preemptions at e with t − Window < e ≤ t.
func Want(s Script) []Seen {
	type run struct {
		leaf       string
		slots      int
		start, end int64
	}
	var runs []run
	open := map[int]int{}
	var out []Seen
	for _, e := range s.Events {
		switch e.Kind {
		case Start:
			open[e.Job] = len(runs)
			runs = append(runs, run{Leaf(e.Project, e.User), e.Slots, e.At, math.MaxInt64})
		case End:
			runs[open[e.Job]].end = e.At
			delete(open, e.Job)
		case Look:
			seen := Seen{At: e.At, Usage: map[string]float64{}, Preempted: map[string]int{}}
			for _, l := range s.Leaves {
				seen.Usage[Leaf(l[0], l[1])] = 0
			}
			for _, r := range runs {
				seen.Usage[r.leaf] += s.worth(r.slots, r.start, min(r.end, e.At), e.At)
			}
			for _, p := range s.Projects {
				seen.Preempted[p] = s.count(p, e.At)
			}
			out = append(out, seen)
		}
	}
	return out
}

// worth sums, period by period, what slots held over [from, to) count at t.
func (s Script) worth(slots int, from, to, t int64) float64 {
	p := s.Decay.Period
	var sum float64
	for k := from / p; k*p < to; k++ {
		a, b := max(from, k*p), min(to, (k+1)*p)
		if b > a {
			used := float64(slots) * float64(b-a) / (float64(s.Capacity) * float64(p))
			sum += used * math.Pow(s.factor(), float64(t/p-k))
		}
	}
	return sum
}

// factor is the decay over one period.
func (s Script) factor() float64 {
	if s.Decay.HalfLife > 0 {
		return math.Exp2(-float64(s.Decay.Period) / float64(s.Decay.HalfLife))
	}
	return s.Decay.PerPeriod
}

func (s Script) count(project string, t int64) int {
	n := 0
	for _, e := range s.Events {
		if e.Kind == Preempt && e.Project == project && e.At > t-s.Window && e.At <= t {
			n++
		}
	}
	return n
}

// Compare reports the first difference between got and want beyond a
// relative tolerance tol on usage.
func Compare(got, want []Seen, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d looks, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		for _, leaf := range sortedKeys(w.Usage) {
			if d := math.Abs(g.Usage[leaf] - w.Usage[leaf]); d > tol*max(1, math.Abs(w.Usage[leaf])) {
				return fmt.Errorf("look at %d: usage of %s = %.15g, want %.15g", w.At, leaf, g.Usage[leaf], w.Usage[leaf])
			}
		}
		for _, p := range sortedKeys(w.Preempted) {
			if g.Preempted[p] != w.Preempted[p] {
				return fmt.Errorf("look at %d: %s preempted %d, want %d", w.At, p, g.Preempted[p], w.Preempted[p])
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
