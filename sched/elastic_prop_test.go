package sched

import (
	"fmt"
	"math"
)

// Property-test helpers for elastic jobs, moves and resizes.

// onLadder reports whether a task of n slots is a size job j may run: its
// Slots, or for an elastic job a halving of it, or MinSlots.
func onLadder(j *Job, n int) bool {
	if n == j.Slots {
		return true
	}
	if j.MinSlots == 0 {
		return false
	}
	for s := j.Slots; s > j.MinSlots; {
		s = max(s/2, j.MinSlots)
		if n == s {
			return true
		}
	}
	return false
}

// smallest returns j as the smallest task it could start: an elastic job
// at MinSlots. Pending reasons are judged at that size, since every size
// was tried.
func smallest(j *Job) *Job {
	if j.MinSlots == 0 {
		return j
	}
	c := *j
	c.Slots = j.MinSlots
	return &c
}

// moveCheck holds what moveProblems and resizeProblems share.
type moveCheck struct {
	s       *Snapshot
	p       *Plan
	seen    []bool // allocations the plan preempted, moved or resized
	pending []int
	used    []int
	touched []bool
	bad     []string
}

func (m *moveCheck) fail(f string, args ...any) { m.bad = append(m.bad, fmt.Sprintf(f, args...)) }

// placed checks a new placement of one of j's tasks.
func (m *moveCheck) placed(what string, j *Job, nodes []NodeSlots) bool {
	names := map[int32]bool{}
	for _, ns := range nodes {
		if ns.Node < 0 || int(ns.Node) >= len(m.s.Nodes) {
			m.fail("%s of %s: node index %d out of range", what, j.ID, ns.Node)
			return false
		}
		nd := &m.s.Nodes[ns.Node]
		switch {
		case names[ns.Node]:
			m.fail("%s of %s names node %s twice", what, j.ID, nd.Name)
		case nd.Pool != j.Pool:
			m.fail("%s of %s on node %s of another pool", what, j.ID, nd.Name)
		case j.GPU != "" && nd.GPU != j.GPU:
			m.fail("%s of %s (gpu %s) on node %s of type %q", what, j.ID, j.GPU, nd.Name, nd.GPU)
		case ns.Slots <= 0:
			m.fail("%s of %s has a part of %d slots", what, j.ID, ns.Slots)
		}
		names[ns.Node] = true
	}
	return len(nodes) > 0
}

func (m *moveCheck) young(a *Alloc, j *Job) bool {
	min := m.s.Pools[j.Pool].MinRunTime
	return min > 0 && m.s.Now-a.Start < min
}

// moveProblems checks the plan's moves and resizes, and adds the slots they
// claim to used: a moved or resized task keeps its old slots until its
// checkpoint lands, so it holds, per node, the larger of its old and new
// slots. seen marks allocations the plan already preempted.
func moveProblems(s *Snapshot, p *Plan, seen []bool, pending, used []int, touched []bool) []string {
	m := &moveCheck{s: s, p: p, seen: seen, pending: pending, used: used, touched: touched}
	m.moves()
	m.resizes()
	return m.bad
}

func (m *moveCheck) moves() {
	s := m.s
	for _, mv := range m.p.Moves {
		if mv.Alloc < 0 || mv.Alloc >= len(s.Allocs) || mv.For < 0 || mv.For >= len(s.Jobs) {
			m.fail("move %+v out of range", mv)
			continue
		}
		a := &s.Allocs[mv.Alloc]
		j, for_ := &s.Jobs[a.Job], &s.Jobs[mv.For]
		switch {
		case m.seen[mv.Alloc]:
			m.fail("alloc %d moved twice or moved and preempted", mv.Alloc)
		case a.Preempting:
			m.fail("alloc %d moved while preempting", mv.Alloc)
		case !j.Preemptible || j.Interactive:
			m.fail("alloc %d of %s moved: preemptible %v, interactive %v", mv.Alloc, j.ID, j.Preemptible, j.Interactive)
		case m.young(a, j):
			m.fail("alloc %d of %s moved before its minimum run time", mv.Alloc, j.ID)
		case Slots(mv.Nodes) != Slots(a.Nodes):
			m.fail("alloc %d of %s moved from %d slots to %d", mv.Alloc, j.ID, Slots(a.Nodes), Slots(mv.Nodes))
		case for_.Pool != j.Pool:
			m.fail("alloc %d of pool %d moved for %s of pool %d", mv.Alloc, j.Pool, for_.ID, for_.Pool)
		case m.pending[mv.For] == 0:
			m.fail("alloc %d moved for %s, which has no held task", mv.Alloc, for_.ID)
		}
		m.seen[mv.Alloc] = true
		if !m.placed("move", j, mv.Nodes) {
			continue
		}
		for _, ns := range mv.Nodes {
			m.used[ns.Node] += int(ns.Slots)
			m.touched[ns.Node] = true
		}
	}
}

func (m *moveCheck) resizes() {
	s := m.s
	grew := make([]bool, len(s.Pools))
	// grewRank is, per pool, the rank of the least important job that
	// grew: in a priority or multifactor pool a task grows ahead of
	// strictly less important jobs (elastic_ahead.go).
	grewRank := make([]float64, len(s.Pools))
	for i := range grewRank {
		grewRank[i] = math.Inf(1)
	}
	mf, _ := PriorityFactors(s)
	rank := func(j int) float64 {
		if s.Pools[s.Jobs[j].Pool].Policy == PolicyMultifactor && j < len(mf) {
			return mf[j].Priority
		}
		return -float64(s.Jobs[j].Priority)
	}
	for _, rs := range m.p.Resizes {
		if rs.Alloc < 0 || rs.Alloc >= len(s.Allocs) {
			m.fail("resize %+v out of range", rs)
			continue
		}
		a := &s.Allocs[rs.Alloc]
		j := &s.Jobs[a.Job]
		old := Slots(a.Nodes)
		want := min(2*old, j.Slots)
		// A fair-share pool that preempts, or a quota pool's reclaim, may
		// shrink a grown task in place, not below its min, for a job
		// below its share or quota.
		shrunk := Slots(rs.Nodes) < old
		pl := &s.Pools[j.Pool]
		// Ahead of less important jobs a task grows to as much of its
		// doubling as fits; elsewhere it doubles.
		short := GrowsAhead(pl.Policy) && Slots(rs.Nodes) > old && Slots(rs.Nodes) < want
		switch {
		case m.seen[rs.Alloc]:
			m.fail("alloc %d resized twice, or resized and preempted or moved", rs.Alloc)
		case j.MinSlots == 0 || j.Interactive || a.Preempting:
			m.fail("alloc %d of %s resized: min slots %d, interactive %v, preempting %v", rs.Alloc, j.ID, j.MinSlots, j.Interactive, a.Preempting)
		case m.young(a, j):
			m.fail("alloc %d of %s resized before its minimum run time", rs.Alloc, j.ID)
		case shrunk && ((pl.Policy != PolicyFairShare || !pl.Preemption) && pl.Policy != PolicyQuota || !j.Preemptible || len(a.Nodes) != 1 ||
			len(rs.Nodes) != 1 || rs.Nodes[0].Node != a.Nodes[0].Node || Slots(rs.Nodes) < j.MinSlots):
			m.fail("alloc %d of %s shrunk from %d to %d slots (min %d) on %v", rs.Alloc, j.ID, old, Slots(rs.Nodes), j.MinSlots, rs.Nodes)
		case !shrunk && !short && (want <= old || Slots(rs.Nodes) != want):
			m.fail("alloc %d of %s resized from %d to %d slots, want %d (max %d)", rs.Alloc, j.ID, old, Slots(rs.Nodes), want, j.Slots)
		}
		m.seen[rs.Alloc] = true
		if !shrunk {
			grewRank[j.Pool] = min(grewRank[j.Pool], rank(a.Job))
		}
		grew[j.Pool] = grew[j.Pool] || !shrunk
		if !m.placed("resize", j, rs.Nodes) {
			continue
		}
		for _, ns := range rs.Nodes {
			if k := int(ns.Slots - slotsOn(a.Nodes, ns.Node)); k > 0 {
				m.used[ns.Node] += k
				m.touched[ns.Node] = true
			}
		}
	}
	// Tasks grow only when no slot job of the pool waits for slots; in a
	// priority or multifactor pool, none at least as important as a job
	// that grew.
	for _, pe := range m.p.Pending {
		if pe.Job < 0 || pe.Job >= len(s.Jobs) {
			continue
		}
		j := &s.Jobs[pe.Job]
		if GrowsAhead(s.Pools[j.Pool].Policy) && rank(pe.Job) < grewRank[j.Pool] {
			continue
		}
		if grew[j.Pool] && j.Slots > 0 && blocksExpansion(pe.Reason) {
			m.fail("pool %s expands elastic tasks while %s waits with %v", s.Pools[j.Pool].Name, j.ID, pe.Reason)
		}
	}
}
