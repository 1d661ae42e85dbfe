package sim

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Fair share. The simulator's lifecycle.Cluster keeps each account's
// decayed usage between passes, which the core leaves to its caller
// (sched.Decay), and the simulator puts it in the snapshot's accounts at
// each event (Cluster.Advance). The accounting is lifecycle.Usage's, the
// master's too: usage counted per period, as seed 003 counts it per day,
// periods running in steps of Decay.Period from the Unix epoch, as on
// the live master: the ledger's time is Input.Epoch + the simulated time
// (time 0 itself with an Epoch of 0). What an account's
// jobs hold during a period counts in full, and at the end of each
// period all usage so far decays once. So six hours on all of four nodes
// is 0.25 for the rest of that day, and 0.175 the day after with a decay
// of 0.7.
//
// An account is charged for every slot its jobs hold, checkpointing and
// draining slots included.

// chargedSlots is the capacity usage is a share of: the slots of the
// multifactor pools, the only pools whose jobs charge accounts. A node
// down or drained still counts, one deleted (gone: the nodes of the
// snapshot's indices) does not (lifecycle.FairShareSlots, which the
// master's snapNodes counts its nodes by too), and a
// node reshaped counts its new slots (own, by index), not what its tasks
// hold, in the pool it is in now (moved, by index, for the nodes a
// reshape moved), as the master's snapNodes; so it is fixed for the run
// but for deletions and reshapes.
func chargedSlots(in *Input, gone map[int32]bool, own, moved map[int32]int) int {
	capacity, i := 0, int32(0)
	for _, p := range in.Pools {
		for _, n := range p.Nodes {
			policy := p.Policy
			if to, ok := moved[i]; ok {
				policy = in.Pools[to].Policy
			}
			slots, ok := own[i]
			if !ok {
				slots = n.Slots
			}
			capacity += lifecycle.FairShareSlots(policy, slots, gone[i])
			i++
		}
	}
	return capacity
}

// reshape gives node e.Node e.Shape (lifecycle's EventNodeReshape), in
// pool e.Pool when it names one, and sets the fair-share capacity again,
// with its new slots in its pool now. The node keeps its zero-slot limit,
// until it moves to another pool, whose limit it takes then, as a live
// node a configuration reload moves does.
func (s *sim) reshape(e Event) {
	n := s.nodeIdx[e.Node]
	sh := *e.Shape
	sh.Pool, sh.ZeroSlotLimit = s.c.Snap.Nodes[n].Pool, s.c.Snap.Nodes[n].ZeroSlotLimit
	if e.Pool != "" {
		sh.Pool = s.poolNamed(e.Pool)
		if sh.Pool != s.c.Snap.Nodes[n].Pool {
			sh.ZeroSlotLimit = s.in.Pools[sh.Pool].ZeroSlotLimit
		}
	}
	o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventNodeReshape, Node: n, Shape: &sh})
	if !o.Applied {
		return
	}
	if s.own == nil {
		s.own = map[int32]int{}
	}
	s.own[n] = e.Shape.Slots
	if e.Pool != "" {
		if s.moved == nil {
			s.moved = map[int32]int{}
		}
		s.moved[n] = sh.Pool
	}
	s.c.Ledgers.SetCapacity(s.c.Snap.Accounts, s.now, chargedSlots(s.in, s.gone, s.own, s.moved))
	s.rec.accountSlots()
}

// inputNode is the input's node of snapshot index n: the pools' nodes in
// order.
func (s *sim) inputNode(n int32) *sched.Node {
	for i := range s.in.Pools {
		nodes := s.in.Pools[i].Nodes
		if int(n) < len(nodes) {
			return &nodes[n]
		}
		n -= int32(len(nodes))
	}
	return &sched.Node{}
}

// deleted applies what node event e changes to the deleted nodes: a
// deletion also ends the node's drain, as the master forgets a deleted
// node's (a node of its name that registers again is a new one), and
// the deletion and the return of a deleted node set the fair-share
// capacity again (lifecycle.Ledgers.SetCapacity).
func (s *sim) deleted(e Event) {
	n := s.nodeIdx[e.Node]
	switch {
	case e.Kind == EventNodeDelete && !s.gone[n]:
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventNodeResume, Node: n})
	case e.Kind == EventNodeUp && s.gone[n]:
	default:
		return
	}
	if s.gone == nil {
		s.gone = map[int32]bool{}
	}
	s.gone[n] = e.Kind == EventNodeDelete
	s.c.Ledgers.SetCapacity(s.c.Snap.Accounts, s.now, chargedSlots(s.in, s.gone, s.own, s.moved))
	s.rec.accountSlots()
}
