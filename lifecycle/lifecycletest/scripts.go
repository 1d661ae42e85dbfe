package lifecycletest

import (
	"math/rand/v2"

	"github.com/allot-sched/allot/sched"
)

const (
	hour = 3600
	day  = 24 * hour
)

// Scripts are the scripts every driver plays.
func Scripts() map[string]Script {
	return map[string]Script{
		"seed003":       Seed003(),
		"random-day":    Random(1, sched.Decay{Period: day, PerPeriod: 0.7}),
		"random-hl":     Random(2, sched.Decay{Period: hour, HalfLife: 3 * hour}),
		"random-hourly": Random(3, sched.Decay{Period: hour, PerPeriod: 0.5}),
	}
}

// Seed003 is seed 003's jack and jill on four one-slot nodes with a decay
// of 0.7 a day: jill holds three nodes all of day 0 (U = 0.75), then counts
// 0.525 on day 1 and 0.3675 on day 2; jack's one node runs across the
// first midnight. Preemptions of vision fall around the hour's edge.
func Seed003() Script {
	s := Script{Decay: sched.Decay{Period: day, PerPeriod: 0.7}, Capacity: 4, Window: hour,
		Leaves:   [][2]string{{"pi", "jack"}, {"pi", "jill"}},
		Projects: []string{"pi", "vision"}}
	s.Events = []Event{
		{At: 0, Kind: Start, Job: 1, Project: "pi", User: "jill", Slots: 3},
		{At: 6 * hour, Kind: Look},
		{At: 18 * hour, Kind: Start, Job: 2, Project: "pi", User: "jack", Slots: 1},
		{At: 18 * hour, Kind: Preempt, Project: "vision"},
		{At: 18*hour + 1, Kind: Preempt, Project: "vision"},
		{At: day - 1, Kind: Look},
		{At: day, Kind: End, Job: 1},
		{At: day, Kind: Look},
		{At: day + 6*hour, Kind: End, Job: 2},
		{At: 2 * day, Kind: Look},
		{At: 3*day + 5, Kind: Look},
	}
	return s
}

// Random is a script of work starting and ending on three leaves of two
// projects over three days, preemptions, and a look after every few
// events, drawn from seed.
func Random(seed uint64, d sched.Decay) Script {
	r := rand.New(rand.NewPCG(seed, 13))
	s := Script{Decay: d, Capacity: 16, Window: hour,
		Leaves:   [][2]string{{"lab", "ana"}, {"lab", "bo"}, {"nlp", "ana"}},
		Projects: []string{"lab", "nlp"}}
	var t int64
	type job struct{ id, slots int }
	var running []job
	next := 1
	for t < 3*day {
		t += r.Int64N(2 * hour)
		switch k := r.IntN(6); {
		case k < 2 && len(running) < 4:
			l := s.Leaves[r.IntN(len(s.Leaves))]
			j := job{next, 1 + r.IntN(4)}
			next++
			running = append(running, j)
			s.Events = append(s.Events, Event{At: t, Kind: Start, Job: j.id, Project: l[0], User: l[1], Slots: j.slots})
		case k < 4 && len(running) > 0:
			i := r.IntN(len(running))
			s.Events = append(s.Events, Event{At: t, Kind: End, Job: running[i].id})
			running = append(running[:i], running[i+1:]...)
		case k == 4:
			s.Events = append(s.Events, Event{At: t, Kind: Preempt, Project: s.Projects[r.IntN(2)]})
		default:
			s.Events = append(s.Events, Event{At: t, Kind: Look})
		}
	}
	// Looks on and just after period boundaries, where decay applies.
	s.Events = append(s.Events, Event{At: t + 1, Kind: Look})
	end := (t/d.Period + 1) * d.Period
	for _, at := range []int64{end - 1, end, end + 1, end + d.Period} {
		s.Events = append(s.Events, Event{At: at, Kind: Look})
	}
	return s
}
