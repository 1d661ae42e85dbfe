package sched

import (
	"fmt"
	"slices"
)

// Zero-slot tasks (a notebook that needs no GPU) take no slot, only a
// place under a node's ZeroSlotLimit. One that finds no place waits with
// zero_slot_full while a node up (not drained) could take it, once a
// zero-slot task there ends, and its message gives the limit and the
// jobs holding it; when no node up could (its pool's nodes are all
// drained, or none is of its GPU type) it waits as a slot job would,
// with no_nodes (naming the drained nodes, whose resume it waits for) or
// gpu_type, and blocks no other zero-slot job.

// zeroWait is why a zero-slot task of j, request r, found no node.
func (p *pass) zeroWait(j int32, r *request) Pending {
	pe := Pending{Job: int(j), Reason: ReasonZeroSlotFull, Blocker: -1, At: -1}
	for _, gi := range p.st.poolGroups[r.pool] {
		g := &p.st.groups[gi]
		if !p.st.matches(g, r) {
			continue
		}
		for _, n := range g.nodes {
			if !p.s.Nodes[n].Drained {
				return pe
			}
		}
	}
	pe.Reason = ReasonNoNodes
	if r.gpu != "" && !p.gpuOffered(&p.s.Jobs[j]) {
		pe.Reason = ReasonGPUType
	}
	return pe
}

// zeroTakers reports whether node n could take job's zero-slot tasks,
// drained or not: of its pool and, if it asks for one, its GPU type.
func zeroTakers(n *Node, job *Job) bool {
	return n.Pool == job.Pool && (job.GPU == "" || n.GPU == job.GPU)
}

// ZeroSlotHolders says what holds a zero_slot_full job back: the largest
// zero-slot limit of the nodes up (not drained) that could take its
// tasks, and the jobs whose zero-slot tasks are there, by ID, each once:
// those of s's allocations in their order, then those plan (made from
// s; nil for none) starts there.
func (s *Snapshot) ZeroSlotHolders(job *Job, plan *Plan) (limit int, ids []string) {
	on := func(nodes []NodeSlots) bool {
		for _, ns := range nodes {
			if ns.Slots != 0 || ns.Node < 0 || int(ns.Node) >= len(s.Nodes) {
				continue
			}
			if n := &s.Nodes[ns.Node]; !n.Drained && zeroTakers(n, job) {
				return true
			}
		}
		return false
	}
	add := func(ji int) {
		if ji >= 0 && ji < len(s.Jobs) && !slices.Contains(ids, s.Jobs[ji].ID) {
			ids = append(ids, s.Jobs[ji].ID)
		}
	}
	for i := range s.Nodes {
		if n := &s.Nodes[i]; !n.Drained && zeroTakers(n, job) {
			limit = max(limit, n.ZeroSlotLimit)
		}
	}
	for i := range s.Allocs {
		if on(s.Allocs[i].Nodes) {
			add(s.Allocs[i].Job)
		}
	}
	if plan != nil {
		for _, st := range plan.Starts {
			if on(st.Nodes) {
				add(st.Job)
			}
		}
	}
	return limit, ids
}

// maxHolders is how many holding jobs a zero_slot_full message names.
const maxHolders = 3

// ZeroSlotFullMessage is zero_slot_full's message, given the limit and
// the holding jobs' IDs (ZeroSlotHolders): "every node already runs its
// limit of zero-slot tasks (1 per node), held by job 2".
func ZeroSlotFullMessage(limit int, ids []string) string {
	const full = "every node already runs its limit of zero-slot tasks"
	if limit <= 0 || len(ids) == 0 {
		return full
	}
	return fmt.Sprintf("%s (%d per node), held by %s", full, limit, jobsPhrase(ids))
}

// zeroFullMessage is p's zero_slot_full message on s after plan.
func (p Pending) zeroFullMessage(s *Snapshot, plan *Plan) string {
	if p.Job < 0 || p.Job >= len(s.Jobs) {
		return ZeroSlotFullMessage(0, nil)
	}
	return ZeroSlotFullMessage(s.ZeroSlotHolders(&s.Jobs[p.Job], plan))
}
