package lifecycle_test

import (
	"cmp"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/lifecycle/lifecycletest"
)

// holder drives lifecycle the simulator's way: Hold when holdings change,
// Advance to each event.
type holder struct {
	s      lifecycletest.Script
	usage  *lifecycle.Usage[string]
	budget *lifecycle.Budget[string]
	jobs   map[int]job
}

type job struct {
	leaf       string
	slots      int
	usedTo     int64
	start, end int64
}

func newHolder(s lifecycletest.Script) *holder {
	return &holder{s: s, usage: lifecycle.NewUsage(s.Decay, s.Capacity, 0, cmp.Compare[string]),
		budget: lifecycle.NewBudget[string](s.Window), jobs: map[int]job{}}
}

func (h *holder) Start(at int64, id int, project, user string, slots int) {
	h.usage.Advance(at)
	leaf := lifecycletest.Leaf(project, user)
	h.usage.Hold(leaf, slots)
	h.jobs[id] = job{leaf: leaf, slots: slots}
}

func (h *holder) End(at int64, id int) {
	h.usage.Advance(at)
	h.usage.Hold(h.jobs[id].leaf, -h.jobs[id].slots)
	delete(h.jobs, id)
}

func (h *holder) Preempt(at int64, project string) { h.budget.Note(project, at) }

func (h *holder) Look(at int64) lifecycletest.Seen {
	h.usage.Advance(at)
	seen := lifecycletest.Seen{At: at, Usage: map[string]float64{}, Preempted: map[string]int{}}
	for _, k := range h.usage.Keys() {
		seen.Usage[k] = h.usage.Get(k)
	}
	for _, p := range h.s.Projects {
		seen.Preempted[p] = h.budget.Count(p, at)
	}
	return seen
}

// recorder drives lifecycle the master's way: usage records of slot-
// seconds every interval and when work ends, what open work used since
// its last record added at each look with Worth, and, with restart set,
// the ledger rebuilt from every record, newest first, before each look.
type recorder struct {
	holder
	interval int64
	next     int64
	restart  bool
	records  [][4]float64 // leaf index, from, to, slot-seconds
	leaves   []string
}

func (r *recorder) Start(at int64, id int, project, user string, slots int) {
	r.flush(at)
	r.jobs[id] = job{leaf: lifecycletest.Leaf(project, user), slots: slots, usedTo: at}
}

func (r *recorder) End(at int64, id int) {
	r.flush(at)
	r.record(r.jobs[id], at)
	delete(r.jobs, id)
}

func (r *recorder) record(j job, to int64) {
	if to <= j.usedTo {
		return
	}
	secs := float64(j.slots) * float64(to-j.usedTo)
	r.usage.Charge(j.leaf, j.usedTo, to, secs)
	r.leaves = append(r.leaves, j.leaf)
	r.records = append(r.records, [4]float64{float64(len(r.leaves) - 1), float64(j.usedTo), float64(to), secs})
}

func (r *recorder) flush(now int64) {
	if now < r.next {
		return
	}
	r.next = now + r.interval
	for id, j := range r.jobs {
		r.record(j, now)
		j.usedTo = now
		r.jobs[id] = j
	}
}

func (r *recorder) Look(at int64) lifecycletest.Seen {
	r.flush(at)
	if r.restart {
		r.usage = lifecycle.NewUsage(r.s.Decay, r.s.Capacity, 0, cmp.Compare[string])
		for i := len(r.records) - 1; i >= 0; i-- {
			c := r.records[i]
			r.usage.Charge(r.leaves[int(c[0])], int64(c[1]), int64(c[2]), c[3])
		}
	}
	seen := r.holder.Look(at)
	for _, j := range r.jobs {
		seen.Usage[j.leaf] += lifecycle.Worth(r.s.Decay, r.s.Capacity, j.usedTo, at, float64(j.slots)*float64(at-j.usedTo), at)
	}
	return seen
}

// TestScripts: held, recorded every five minutes or every hour, or
// rebuilt from records in reverse as after a restart, the same events
// give what the definitions say.
func TestScripts(t *testing.T) {
	for name, s := range lifecycletest.Scripts() {
		want := lifecycletest.Want(s)
		drivers := map[string]lifecycletest.Driver{
			"held":            newHolder(s),
			"records-5m":      &recorder{holder: *newHolder(s), interval: 300},
			"records-1h":      &recorder{holder: *newHolder(s), interval: 3600},
			"records-restart": &recorder{holder: *newHolder(s), interval: 300, restart: true},
		}
		for dn, d := range drivers {
			if err := lifecycletest.Compare(lifecycletest.Run(s, d), want, 1e-12); err != nil {
				t.Errorf("%s, %s: %v", name, dn, err)
			}
		}
	}
}
