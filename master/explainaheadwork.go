package master

import (
	"slices"
	"strconv"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// A play-out's work outside the master's mutex: the state after the last
// pass (afterPass), the play-out itself (aheadWork.run), and which of the
// jobs it names run on other nodes than the answer's (splitElsewhere).

// afterPass makes s, a copy of the last pass's snapshot, the state
// after that pass: its plan (the core's, again: the same snapshot gives
// the same plan) applied, its starts as allocations appended after the
// snapshot's, so that their indexes hold, and its preemptions under way;
// with the reservations it carried. A pool whose instant settles in one
// pass (lifecycle.OneShot) leaves starts the snapshot does not show.
// Only pool's jobs wait in it: the others' plans are no part of the
// answer, and cost a pass.
func afterPass(s *sched.Snapshot, pool int) {
	onePool(s, pool)
	plan, err := sched.Schedule(s)
	if err != nil {
		return
	}
	for _, pr := range plan.Preemptions {
		if pr.Alloc >= 0 && pr.Alloc < len(s.Allocs) {
			s.Allocs[pr.Alloc].Preempting = true
		}
	}
	for _, st := range plan.Starts {
		s.Allocs = append(s.Allocs, sched.Alloc{Job: st.Job, Nodes: slices.Clone(st.Nodes), Start: s.Now})
		s.Jobs[st.Job].Waiting = max(s.Jobs[st.Job].Waiting-1, 0)
	}
	lifecycle.Reservations(plan, func(i int, at int64, nodes []sched.NodeSlots) {
		j := &s.Jobs[i]
		j.Reserved, j.ReservedNodes = at, append(j.ReservedNodes[:0], nodes...)
	})
}

// onePool leaves only pool's jobs waiting in s, whose Jobs are the
// caller's own, and no Rev: its passes run on a Scheduler of their own,
// which has seen no earlier pass. Licenses, which count across pools,
// are the only tie between pools, and a job short of one has its own
// answer (licenseShort).
func onePool(s *sched.Snapshot, pool int) {
	for i := range s.Jobs {
		if s.Jobs[i].Pool != pool {
			s.Jobs[i].Waiting = 0
		}
		s.Jobs[i].Rev = 0
	}
	s.NodesVersion = 0
}

// aheadWork is a play-out prepared under mu (explain), to run outside
// it: the state, its configuration, the job, the answer and what it
// asked.
type aheadWork struct {
	s   *sched.Snapshot
	cfg *config.Config
	ji  int
	cf  *api.Counterfactual
	ask *aheadAsk
	// resized is the counterfactual's (cfFacts.resized): afterPass
	// keeps the snapshot's allocations at their indexes.
	resized map[int]api.SlotChange
}

// run plays the answer out on its copy, made the state after the last
// pass (afterPass), naming jobs from read view v.
func (w *aheadWork) run(v *readView) *api.Counterfactual {
	s := w.s
	afterPass(s, s.Jobs[w.ji].Pool)
	pf := &cfFacts{s: s, cfg: w.cfg, resized: w.resized, rec: func(ji int) *store.Job {
		if ji < 0 || ji >= len(s.Jobs) {
			return nil
		}
		id, err := strconv.ParseInt(s.Jobs[ji].ID, 10, 64)
		if err != nil {
			return nil
		}
		if j := v.job(id); j != nil {
			return &j.rec
		}
		return nil
	}}
	return pf.playAhead(w.ji, w.cf, w.ask)
}

// splitElsewhere marks in out.MustEnd the jobs whose allocations gone
// run on none of out.Nodes (RunsOn: their nodes), and returns those on
// them and those elsewhere: a job on another node must end for the jobs
// the pool serves first, which its room lets start and stop blocking
// this one. The table under "on n2, once these end" listed it as though
// it ran on n2 (trial 2026-11-29b B8).
func (f *cfFacts) splitElsewhere(out *api.Counterfactual, gone []int) (there, away []api.JobRef) {
	if len(out.Nodes) == 0 {
		return out.MustEnd, nil
	}
	s := f.s
	on := map[int64][]string{}
	for _, ai := range gone {
		a := &s.Allocs[ai]
		id := int64(-1)
		if rec := f.rec(a.Job); rec != nil {
			id = rec.ID
		} else if n, err := strconv.ParseInt(s.Jobs[a.Job].ID, 10, 64); err == nil {
			id = n
		}
		for _, ns := range a.Nodes {
			if int(ns.Node) < len(s.Nodes) && !slices.Contains(on[id], s.Nodes[ns.Node].Name) {
				on[id] = append(on[id], s.Nodes[ns.Node].Name)
			}
		}
	}
	for i := range out.MustEnd {
		r := &out.MustEnd[i]
		nodes := on[r.ID]
		if len(nodes) == 0 || slices.ContainsFunc(nodes, func(n string) bool { return slices.Contains(out.Nodes, n) }) {
			there = append(there, *r)
			continue
		}
		slices.Sort(nodes)
		r.RunsOn = nodes
		away = append(away, *r)
	}
	return there, away
}
