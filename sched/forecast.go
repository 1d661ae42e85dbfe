package sched

import (
	"math"
	"slices"
)

// Forecast runs the core forward to estimate when waiting jobs start: from
// a copy of a snapshot, every running task ends at its time limit, every
// job that starts runs for its time limit, and each pass's starts are
// carried out, until every job has started or no task with a time limit
// is left to end. A task already preempting (Alloc.Preempting) lets go
// of its slots at its FreeBy, the deadline of its checkpoint, or at once
// where that is not known or already past. A pass's preemptions are
// carried out at once: the victim
// lets go of its slots (as a task already preempting does) and waits again
// (a preemptible task is rescheduled, as exit actions have it unless they
// fail it), so the job it was preempted for starts at the next pass, at
// the same instant: its checkpoint's seconds aside, when it would live.
// Moves and resizes are not carried out; jobs behind a task without a
// time limit get none. It is pure, as Schedule is:
// the live master shows its estimates for every waiting job, and the
// simulator records them at submission to measure their accuracy.

// Forecast bounds: passes and end events, so that a forecast costs a
// bounded number of passes however long the queue.
const (
	maxForecastEvents = 500
	maxForecastPasses = 2000
)

// Forecast returns, for each job of base with waiting tasks, when the
// first of them would start (Unix seconds); jobs it cannot place in the
// bounds are left out. base is not changed.
func Forecast(base *Snapshot) map[int]int64 { return ForecastScaled(base, 1) }

// ForecastScaled is Forecast with every job running for scale (in (0, 1])
// of its time limit: with scale the typical share of their limit that jobs
// use (the master takes the median of recent attempts), it gives the
// optimistic end of an estimate's range. A running task whose scaled run
// is already over ends at the first step.
func ForecastScaled(base *Snapshot, scale float64) map[int]int64 {
	if !(scale > 0) || scale > 1 {
		scale = 1
	}
	s := *base
	s.Jobs = slices.Clone(base.Jobs)
	if scale < 1 {
		for i := range s.Jobs {
			if lim := s.Jobs[i].TimeLimit; lim > 0 {
				s.Jobs[i].TimeLimit = max(int64(math.Ceil(float64(lim)*scale)), 1)
			}
		}
	}
	s.Allocs = make([]Alloc, 0, len(base.Allocs))
	cloned := false
	for _, a := range base.Allocs {
		if a.Preempting {
			// It frees its slots by its deadline (or its time limit,
			// unscaled: a checkpoint takes what it takes), never before
			// now; with neither ahead they are as good as free, but a
			// drained node's go with it.
			if a.FreeBy = min(a.FreeBy, a.End(base.Jobs)); a.FreeBy <= s.Now {
				cloned = s.shrinkDrained(a.Nodes, cloned)
				continue
			}
		}
		a.Nodes = slices.Clone(a.Nodes)
		if end := a.End(s.Jobs); !a.Preempting && end != Never && end <= s.Now {
			a.Start += s.Now + 1 - end
		}
		s.Allocs = append(s.Allocs, a)
	}
	eta := map[int]int64{}
	var sc Scheduler
	passes := 0
	for events := 0; events < maxForecastEvents; events++ {
		for passes < maxForecastPasses {
			passes++
			plan, err := sc.Schedule(&s)
			if err != nil || len(plan.Starts)+len(plan.Preemptions) == 0 {
				break
			}
			for _, st := range plan.Starts {
				if _, ok := eta[st.Job]; !ok && base.Jobs[st.Job].Waiting > 0 {
					eta[st.Job] = s.Now
				}
				s.Allocs = append(s.Allocs, Alloc{Job: st.Job, Nodes: slices.Clone(st.Nodes), Start: s.Now})
				s.Jobs[st.Job].Waiting--
			}
			cloned = s.forecastPreempt(plan.Preemptions, cloned)
		}
		next := Never
		for i := range s.Allocs {
			if end := forecastEnd(&s.Allocs[i], s.Jobs); end > s.Now && end < next {
				next = end
			}
		}
		if next == Never || waitingLeft(&s) == 0 {
			break
		}
		kept := s.Allocs[:0]
		for _, a := range s.Allocs {
			if forecastEnd(&a, s.Jobs) > next {
				kept = append(kept, a)
			} else {
				cloned = s.shrinkDrained(a.Nodes, cloned)
			}
		}
		s.Allocs, s.Now = kept, next
	}
	return eta
}

// forecastEnd is when allocation a lets go of its slots in a forecast:
// a preempting one by its deadline (ForecastScaled set its FreeBy to
// the sooner of that and its time limit), any other at its time limit.
func forecastEnd(a *Alloc, jobs []Job) int64 {
	if a.Preempting {
		return a.FreeBy
	}
	return a.End(jobs)
}

// forecastPreempt carries out a forecast pass's preemptions: each victim
// (by its index in s.Allocs, which the pass's starts, appended after,
// leave as they are) lets go of its slots now and its task waits again.
// It reports whether s.Nodes is the caller's own, as shrinkDrained.
func (s *Snapshot) forecastPreempt(pre []Preemption, cloned bool) bool {
	if len(pre) == 0 {
		return cloned
	}
	gone := make([]bool, len(s.Allocs))
	for _, p := range pre {
		if p.Alloc < 0 || p.Alloc >= len(s.Allocs) || gone[p.Alloc] {
			continue
		}
		gone[p.Alloc] = true
		a := &s.Allocs[p.Alloc]
		if !a.Moving {
			s.Jobs[a.Job].Waiting++
		}
		cloned = s.shrinkDrained(a.Nodes, cloned)
	}
	kept := s.Allocs[:0]
	for i, a := range s.Allocs {
		if !gone[i] {
			kept = append(kept, a)
		}
	}
	s.Allocs = kept
	return cloned
}

// shrinkDrained takes the slots of an ended task off the drained nodes it
// ran on (Node.Drained), which take no new work, so that the forecast
// starts nothing there. s.Nodes is the caller's until cloned, which it
// reports.
func (s *Snapshot) shrinkDrained(nodes []NodeSlots, cloned bool) bool {
	for _, ns := range nodes {
		if !s.Nodes[ns.Node].Drained {
			continue
		}
		if !cloned {
			s.Nodes, cloned = slices.Clone(s.Nodes), true
		}
		s.NodesVersion = 0 // the node list changes from pass to pass
		nd := &s.Nodes[ns.Node]
		if ns.Slots == 0 {
			nd.ZeroSlotLimit = max(nd.ZeroSlotLimit-1, 0)
		} else {
			nd.Slots = max(nd.Slots-int(ns.Slots), 0)
		}
	}
	return cloned
}

func waitingLeft(s *Snapshot) int {
	n := 0
	for i := range s.Jobs {
		n += s.Jobs[i].Waiting
	}
	return n
}
