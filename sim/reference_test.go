package sim_test

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-sched/allot/sched"
)

// reference recomputes one pass of FCFS, EASY or conservative backfilling
// the way Mu'alem and Feitelson (2001) define them, counting processors on
// single-slot nodes, and returns the jobs (snapshot indices) that start
// now and, for conservative, every queued job's reservation. It is an
// independent model of the textbook algorithms to hold the core's plans
// against.
func reference(s *sched.Snapshot) (starts []int, reserved map[int]int64) {
	pool := &s.Pools[0]
	free := int64(0)
	for _, n := range s.Nodes {
		free += int64(n.Slots)
	}
	var ends []release
	for _, a := range s.Allocs {
		n := int64(sched.Slots(a.Nodes))
		free -= n
		ends = append(ends, release{max(a.Start+s.Jobs[a.Job].TimeLimit, s.Now), n})
	}
	var queue []int
	for i := range s.Jobs {
		if s.Jobs[i].Waiting > 0 {
			queue = append(queue, i)
		}
	}
	need := func(j int) int64 { return int64(s.Jobs[j].Slots) }
	limit := func(j int) int64 { return s.Jobs[j].TimeLimit }
	if pool.Policy == sched.PolicyBackfill && pool.Reservations == sched.ReserveConservative {
		promised := func(j int) int64 { return s.Jobs[j].Reserved }
		return conservativeReference(s.Now, free, ends, queue, need, limit, promised)
	}
	// FCFS and EASY both start jobs in order while they fit.
	i := 0
	for ; i < len(queue) && need(queue[i]) <= free; i++ {
		starts = append(starts, queue[i])
		free -= need(queue[i])
		ends = append(ends, release{s.Now + limit(queue[i]), need(queue[i])})
	}
	if pool.Policy == sched.PolicyFIFO || i == len(queue) {
		return starts, nil
	}
	// EASY: the head's shadow time is the first release time at which
	// enough processors are free; the extra ones may be used by jobs
	// that run past it.
	head := queue[i]
	slices.SortStableFunc(ends, func(a, b release) int { return cmp.Compare(a.at, b.at) })
	avail, shadow := free, sched.Never
	for k := 0; k < len(ends) && shadow == sched.Never; {
		at := ends[k].at
		for ; k < len(ends) && ends[k].at == at; k++ {
			avail += ends[k].slots
		}
		if avail >= need(head) {
			shadow = at
		}
	}
	extra := avail - need(head)
	for _, j := range queue[i+1:] {
		if need(j) > free {
			continue
		}
		switch {
		case s.Now+limit(j) <= shadow:
		case need(j) <= extra:
			extra -= need(j)
		default:
			continue
		}
		starts = append(starts, j)
		free -= need(j)
	}
	return starts, nil
}

// release is a running job's processors coming back at its time limit.
type release struct{ at, slots int64 }

// profileStep is one piece of the free-processor profile: free from at on.
type profileStep struct{ at, free int64 }

// conservativeReference compresses the schedule as Mu'alem and Feitelson
// do: every reservation promised by the previous pass enters the profile;
// then each queued job, in the order of those reservations, is taken out
// and given the earliest start
// at which its processors stay free for its whole time limit, given the
// running jobs and every other reservation; a job with no promise yet is
// placed after the promised ones; a job reserved for now starts.
func conservativeReference(now, free int64, ends []release, queue []int,
	need func(int) int64, limit func(int) int64, promised func(int) int64) ([]int, map[int]int64) {
	slices.SortStableFunc(ends, func(a, b release) int { return cmp.Compare(a.at, b.at) })
	prof := []profileStep{{now, free}}
	for _, e := range ends {
		last := prof[len(prof)-1]
		if e.at == last.at {
			prof[len(prof)-1].free += e.slots
		} else {
			prof = append(prof, profileStep{e.at, last.free + e.slots})
		}
	}
	for _, j := range queue {
		if p := promised(j); p > 0 {
			p = max(p, now)
			prof = reserveProfile(prof, p, p+limit(j), need(j))
		}
	}
	// Compress in the order of the original reservations (ties in queue
	// order), then place the jobs without one in queue order.
	order := slices.Clone(queue)
	key := func(j int) int64 {
		if p := promised(j); p > 0 {
			return max(p, now)
		}
		return sched.Never
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	var starts []int
	reserved := map[int]int64{}
	for _, j := range order {
		if p := promised(j); p > 0 {
			p = max(p, now)
			prof = reserveProfile(prof, p, p+limit(j), -need(j))
		}
		at := earliestFit(prof, need(j), limit(j))
		reserved[j] = at
		prof = reserveProfile(prof, at, at+limit(j), need(j))
		if at == now {
			starts = append(starts, j)
		}
	}
	return starts, reserved
}

func earliestFit(prof []profileStep, n, dur int64) int64 {
	for s := range prof {
		if prof[s].free < n {
			continue
		}
		ok := true
		for k := s + 1; k < len(prof) && prof[k].at < prof[s].at+dur; k++ {
			if prof[k].free < n {
				ok = false
				break
			}
		}
		if ok {
			return prof[s].at
		}
	}
	return sched.Never
}

// reserveProfile takes n processors from [from, to).
func reserveProfile(prof []profileStep, from, to, n int64) []profileStep {
	prof = splitAt(prof, from)
	prof = splitAt(prof, to)
	for k := range prof {
		if prof[k].at >= from && prof[k].at < to {
			prof[k].free -= n
		}
	}
	return prof
}

func splitAt(prof []profileStep, t int64) []profileStep {
	i, found := slices.BinarySearchFunc(prof, t, func(s profileStep, t int64) int { return cmp.Compare(s.at, t) })
	if found || i == 0 {
		return prof
	}
	return slices.Insert(prof, i, profileStep{t, prof[i-1].free})
}

// checkReference compares a plan with the reference model: the same jobs
// start, and under conservative every reservation is the same.
func checkReference(s *sched.Snapshot, p *sched.Plan) error {
	want, reserved := reference(s)
	var got []int
	for _, st := range p.Starts {
		got = append(got, st.Job)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("t=%d: the core starts jobs %v, the textbook %v", s.Now, ids(s, got), ids(s, want))
	}
	for _, pe := range p.Pending {
		at, ok := reserved[pe.Job]
		if !ok {
			continue
		}
		if pe.Reason != sched.ReasonReserved || pe.At != at {
			return fmt.Errorf("t=%d: job %s is %s at %d, the textbook reserves it at %d",
				s.Now, s.Jobs[pe.Job].ID, pe.Reason, pe.At, at)
		}
	}
	return nil
}

func ids(s *sched.Snapshot, js []int) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = s.Jobs[j].ID
	}
	return out
}
