package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPassProperties runs random clusters of every policy through many
// passes, applying each plan, finishing checkpoints, ending tasks at their
// limits, letting jobs arrive and carrying conservative reservations as
// callers do, and checks after every pass: no node over capacity; gangs
// all or nothing; under conservative no reservation moved later; no
// reclaim victim below its quota; a shrink for its own project's job
// only for work within quota; in a priority pool growth only while no
// job at least as important waits for slots. At the end, every job that
// fits an empty cluster has run (no starvation).
func TestPassProperties(t *testing.T) {
	type variant struct {
		name string
		pool Pool
	}
	variants := []variant{
		{"fifo", Pool{Policy: PolicyFIFO}},
		{"priority", Pool{Policy: PolicyPriority, Preemption: true, Backfill: true}},
		{"easy", Pool{Policy: PolicyBackfill, Reservations: ReserveEASY}},
		{"conservative", Pool{Policy: PolicyBackfill, Reservations: ReserveConservative}},
		{"fair_share", Pool{Policy: PolicyFairShare, Preemption: true}},
		{"quota", Pool{Policy: PolicyQuota}},
		{"multifactor", Pool{Policy: PolicyMultifactor, Preemption: true, Backfill: true, Reservations: ReserveEASY}},
	}
	cases := 150
	if testing.Short() {
		cases = 40
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(14, uint64(len(v.name))))
			var st passStats
			for c := range cases {
				pl := v.pool
				pl.Name, pl.Placement = "p", []Placement{PlaceBinpack, PlaceSpread}[rng.IntN(2)]
				s, future := passCluster(rng, pl)
				if msg := runPasses(s, future, &st); msg != "" {
					t.Fatalf("case %d: %s", c, msg)
				}
			}
			t.Logf("%+v", st)
			if st.starts == 0 || st.reserved == 0 && pl(v.pool) == ReserveConservative ||
				(st.shrinks == 0 || st.ownShrinks == 0) && v.pool.Policy == PolicyQuota ||
				st.growsAhead == 0 && v.pool.Policy == PolicyPriority {
				t.Errorf("the cases exercised nothing: %+v", st)
			}
		})
	}
}

// passCluster builds one pool of 2 to 6 nodes of 1, 2, 4 or 8 slots (two
// GPU types), two or three projects, and jobs that all have time limits;
// a third of them arrive later (future, by submit time).
func passCluster(rng *rand.Rand, pl Pool) (*Snapshot, []Job) {
	s := &Snapshot{Now: 0, Pools: []Pool{pl}}
	sizes := []int{1, 2, 4, 8}
	total := 0
	for i := range 2 + rng.IntN(5) {
		n := Node{Name: fmt.Sprintf("n%d", i), Slots: sizes[rng.IntN(4)], GPU: gpuTypes[rng.IntN(2)], ZeroSlotLimit: 2}
		total += n.Slots
		s.Nodes = append(s.Nodes, n)
	}
	np := 2 + rng.IntN(2)
	for i := range np {
		s.Projects = append(s.Projects, Project{Name: fmt.Sprintf("pr%d", i), Parent: -1,
			Quota: total / (np + rng.IntN(2)), OverQuotaWeight: float64(1 + rng.IntN(3))})
	}
	randMultifactor(rng, s)
	var leaves []int // jobs charge leaf accounts (fair tree asks it)
	for i := range s.Accounts {
		if len(oracleKids(s, i)) == 0 {
			leaves = append(leaves, i)
		}
	}
	var future []Job
	for i := range 5 + rng.IntN(15) {
		j := Job{ID: fmt.Sprintf("j%02d", i), Kind: KindExperiment, Submit: int64(rng.IntN(3) * 100 * rng.IntN(2)),
			Seq: int64(i + 1), Priority: 1 + rng.IntN(5), Weight: float64(1 + rng.IntN(3)),
			Preemptible: rng.IntN(10) < 7, Waiting: 1 + rng.IntN(3), MaxRunning: 1 + rng.IntN(3),
			TimeLimit: int64(50 + rng.IntN(400)), Project: rng.IntN(np), Slots: 1 + rng.IntN(4)}
		if rng.IntN(5) == 0 {
			j.Slots = 1 + rng.IntN(min(total, 16)) // often a gang, mixed sizes
		}
		if rng.IntN(6) == 0 {
			j.GPU = gpuTypes[rng.IntN(2)]
		}
		if pl.Policy == PolicyQuota && rng.IntN(6) == 0 {
			j.Borrow, j.Preemptible = true, true
		}
		if (pl.Policy == PolicyQuota || pl.Policy == PolicyPriority) && j.Slots > 1 && rng.IntN(2) == 0 {
			j.MinSlots = 1 + rng.IntN(j.Slots-1) // elastic: reclaim may shrink it, a priority pool grow it ahead
		}
		if pl.Policy == PolicyQuota && j.MinSlots == 0 && !j.Borrow && rng.IntN(5) == 0 {
			// A notebook: work within quota, which shrinks its own
			// project's grown elastic task before evicting its work.
			j.Kind, j.Interactive, j.Preemptible = KindNotebook, true, false
		}
		if len(leaves) > 0 {
			j.Account = leaves[rng.IntN(len(leaves))]
		}
		if j.Submit > 0 {
			future = append(future, j)
		} else {
			s.Jobs = append(s.Jobs, j)
		}
	}
	return s, future
}

// passStats counts what the passes did, to show the cases exercise it.
type passStats struct {
	passes, starts, gangs, preemptions, shrinks, reserved int
	ownShrinks                                            int // shrinks for a job of the shrunk task's own project
	growsAhead                                            int // growths in a pass that left a slot job waiting for slots
}

func pl(p Pool) Reservations {
	if p.Policy == PolicyBackfill {
		return p.Reservations
	}
	return ""
}

// runPasses drives the passes and returns the first problem found.
func runPasses(s *Snapshot, future []Job, st *passStats) string {
	var sc Scheduler
	promised := map[string]int64{}
	for pass := 0; pass < 600; pass++ {
		p, err := sc.Schedule(s)
		if err != nil {
			return fmt.Sprintf("pass %d: %v\n%s", pass, err, fmtSnapshot(s))
		}
		st.passes++
		st.starts += len(p.Starts)
		st.preemptions += len(p.Preemptions)
		for _, rs := range p.Resizes {
			if Slots(rs.Nodes) < Slots(s.Allocs[rs.Alloc].Nodes) {
				st.shrinks++
				if s.Jobs[s.Allocs[rs.Alloc].Job].Project == s.Jobs[rs.For].Project {
					st.ownShrinks++
				}
			} else if slices.ContainsFunc(p.Pending, func(pe Pending) bool { return blocksExpansion(pe.Reason) }) {
				st.growsAhead++
			}
		}
		for _, x := range p.Starts {
			if len(x.Nodes) > 1 {
				st.gangs++
			}
		}
		for _, pe := range p.Pending {
			if pe.Reason == ReasonReserved {
				st.reserved++
			}
		}
		if msg := passProblems(s, p, promised); msg != "" {
			return fmt.Sprintf("pass %d at t=%d: %s\n%s\n%s", pass, s.Now, msg, fmtSnapshot(s), fmtPlan(s, p))
		}
		quietPass := quiet(p)
		s = finishCheckpoints(applyPlan(s, p))
		carryReservations(s, p)
		if quietPass {
			var more bool
			if s, future, more = advance(s, future); !more {
				return starved(s, p)
			}
		}
	}
	return "did not drain in 600 passes"
}

// passProblems checks one plan against the snapshot it came from.
func passProblems(s *Snapshot, p *Plan, promised map[string]int64) string {
	used := make([]int, len(s.Nodes))
	for _, a := range s.Allocs {
		for _, ns := range a.Nodes {
			used[ns.Node] += int(ns.Slots)
		}
	}
	for _, st := range p.Starts {
		j := &s.Jobs[st.Job]
		n := Slots(st.Nodes)
		if n != j.Slots && (j.MinSlots == 0 || n < j.MinSlots || n > j.Slots) {
			return fmt.Sprintf("job %s starts a task of %d slots, wants %d: a partial gang", j.ID, n, j.Slots)
		}
		seen := map[int32]bool{}
		for _, ns := range st.Nodes {
			if seen[ns.Node] {
				return fmt.Sprintf("job %s: two parts on node %s", j.ID, s.Nodes[ns.Node].Name)
			}
			seen[ns.Node] = true
			used[ns.Node] += int(ns.Slots)
		}
		delete(promised, j.ID) // that reservation is kept; a next task starts afresh
	}
	for n := range used {
		if used[n] > s.Nodes[n].Slots {
			return fmt.Sprintf("node %s over capacity: %d of %d", s.Nodes[n].Name, used[n], s.Nodes[n].Slots)
		}
	}
	if pl := &s.Pools[0]; pl.Policy == PolicyBackfill && pl.Reservations == ReserveConservative {
		for _, pe := range p.Pending {
			j := &s.Jobs[pe.Job]
			if pe.Reason != ReasonReserved || pe.At == Never {
				continue
			}
			if was, ok := promised[j.ID]; ok && pe.At > was {
				return fmt.Sprintf("job %s reserved at %d, promised %d", j.ID, pe.At, was)
			}
			promised[j.ID] = pe.At
		}
	}
	if msg := growthProblems(s, p); msg != "" {
		return msg
	}
	return quotaVictimProblems(s, p)
}

// growthProblems: a shrink for a job of the shrunk task's own project is
// for work within quota (interactive or non-preemptible) in a quota
// pool; in a priority pool a task grows only while no job at least as
// important as its own waits for slots (elastic_ahead.go).
func growthProblems(s *Snapshot, p *Plan) string {
	for _, rs := range p.Resizes {
		a := &s.Allocs[rs.Alloc]
		v := &s.Jobs[a.Job]
		if Slots(rs.Nodes) < Slots(a.Nodes) {
			f := &s.Jobs[rs.For]
			if v.Project == f.Project && (s.Pools[0].Policy != PolicyQuota || f.Preemptible && !f.Interactive) {
				return fmt.Sprintf("%s shrunk for %s of its own project, not work within quota", v.ID, f.ID)
			}
			continue
		}
		for _, pe := range p.Pending {
			w := &s.Jobs[pe.Job]
			if w.Slots > 0 && blocksExpansion(pe.Reason) && (s.Pools[0].Policy != PolicyPriority || w.Priority <= v.Priority) {
				return fmt.Sprintf("%s grew while %s waits with %v", v.ID, w.ID, pe.Reason)
			}
		}
	}
	return ""
}

// quotaVictimProblems: after the plan, no project that lost counted work
// to another project's reclaim (an eviction or a shrink) holds less than
// its quota.
func quotaVictimProblems(s *Snapshot, p *Plan) string {
	if s.Pools[0].Policy != PolicyQuota || len(p.Preemptions)+len(p.Resizes) == 0 {
		return ""
	}
	held := make([]int, len(s.Projects))
	gone := map[int]bool{}
	for _, pr := range p.Preemptions {
		// Work preempted for its own project's task is replaced by that
		// task, which is held until the checkpoints land: its project
		// does not lose those slots.
		if s.Jobs[s.Allocs[pr.Alloc].Job].Project != s.Jobs[pr.For].Project {
			gone[pr.Alloc] = true
		}
	}
	for i, a := range s.Allocs {
		if j := &s.Jobs[a.Job]; !gone[i] && !a.Preempting && !j.Borrow {
			held[j.Project] += Slots(a.Nodes)
		}
	}
	for _, rs := range p.Resizes {
		a := &s.Allocs[rs.Alloc]
		if j := &s.Jobs[a.Job]; !j.Borrow {
			held[j.Project] += Slots(rs.Nodes) - Slots(a.Nodes)
		}
	}
	for _, st := range p.Starts {
		if j := &s.Jobs[st.Job]; !j.Borrow {
			held[j.Project] += Slots(st.Nodes)
		}
	}
	for _, pr := range p.Preemptions {
		v, f := &s.Jobs[s.Allocs[pr.Alloc].Job], &s.Jobs[pr.For]
		if !v.Borrow && v.Project != f.Project && held[v.Project] < s.Projects[v.Project].Quota {
			return fmt.Sprintf("reclaim for %s took %s's project %s below its quota: %d < %d",
				f.ID, v.ID, s.Projects[v.Project].Name, held[v.Project], s.Projects[v.Project].Quota)
		}
	}
	for _, rs := range p.Resizes {
		if rs.For < 0 {
			continue
		}
		v, f := &s.Jobs[s.Allocs[rs.Alloc].Job], &s.Jobs[rs.For]
		if v.Project != f.Project && held[v.Project] < s.Projects[v.Project].Quota {
			return fmt.Sprintf("shrink for %s took %s's project %s below its quota: %d < %d",
				f.ID, v.ID, s.Projects[v.Project].Name, held[v.Project], s.Projects[v.Project].Quota)
		}
	}
	return ""
}

// carryReservations copies each pending job's reservation into the next
// snapshot, as the simulator and the master do.
func carryReservations(s *Snapshot, p *Plan) {
	for i := range s.Jobs {
		s.Jobs[i].Reserved, s.Jobs[i].ReservedNodes = 0, nil
	}
	for _, pe := range p.Pending {
		if pe.Reason == ReasonReserved && pe.At > 0 && pe.At != Never {
			s.Jobs[pe.Job].Reserved = pe.At
			s.Jobs[pe.Job].ReservedNodes = append([]NodeSlots(nil), pe.Nodes...)
		}
	}
}

// advance moves the clock to the next task end or arrival, ending the
// tasks due then; it reports false when nothing is left to happen.
func advance(s *Snapshot, future []Job) (*Snapshot, []Job, bool) {
	next := Never
	for _, a := range s.Allocs {
		next = min(next, a.End(s.Jobs))
	}
	for _, j := range future {
		next = min(next, j.Submit)
	}
	if next == Never {
		return s, future, false
	}
	s.Now = max(next, s.Now+1)
	kept := s.Allocs[:0]
	for _, a := range s.Allocs {
		if a.End(s.Jobs) > s.Now {
			kept = append(kept, a)
		}
	}
	s.Allocs = kept
	rest := future[:0]
	for _, j := range future {
		if j.Submit <= s.Now {
			s.Jobs = append(s.Jobs, j)
		} else {
			rest = append(rest, j)
		}
	}
	return s, rest, true
}

// starved reports a job left waiting at the end that fits the empty
// cluster and is not held back by a rule of its own (its quota).
func starved(s *Snapshot, last *Plan) string {
	for _, pe := range last.Pending {
		j := &s.Jobs[pe.Job]
		if Feasible(s, j) != nil || pe.Reason == ReasonOverQuota || pe.Reason == ReasonLimit {
			continue
		}
		return fmt.Sprintf("job %s starves: %v (%s) with the cluster idle", j.ID, pe.Reason, pe.Message(s))
	}
	return ""
}
