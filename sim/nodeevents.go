package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/lifecycle"
)

// The node events of a run (down, up, drain, resume, delete, reshape):
// checked against the input before it starts, handed to the lifecycle as
// its node events, and what a node's loss freed reported to the metrics.

// indexNodes maps the names of the nodes that node events name to their
// indices, and checks that each is a node of the input.
func (s *sim) indexNodes() error {
	for i, e := range s.in.Events {
		if !e.Kind.node() {
			continue
		}
		if s.nodeIdx == nil {
			s.nodeIdx = make(map[string]int32, len(s.c.Snap.Nodes))
			for n := len(s.c.Snap.Nodes) - 1; n >= 0; n-- { // the first of a name wins
				s.nodeIdx[s.c.Snap.Nodes[n].Name] = int32(n)
			}
		}
		if _, ok := s.nodeIdx[e.Node]; !ok {
			return fmt.Errorf("event %d at %d: node %q is not a node of the input", i, e.At, e.Node)
		}
		if e.Pool != "" && (e.Kind != EventNodeReshape || s.poolNamed(e.Pool) < 0) {
			return fmt.Errorf("event %d at %d: node %q moves to pool %q, not a pool of the input, or not by a reshape", i, e.At, e.Node, e.Pool)
		}
	}
	return nil
}

// poolNamed is the index of the input's pool named name, -1 for none.
func (s *sim) poolNamed(name string) int {
	return slices.IndexFunc(s.in.Pools, func(p Pool) bool { return p.Name == name })
}

// node reports a node event: down, up, drained or resumed.
func (k EventKind) node() bool {
	return k == EventNodeDown || k == EventNodeUp || k == EventNodeDrain || k == EventNodeResume || k == EventNodeDelete ||
		k == EventNodeReshape
}

// nodeKinds are the lifecycle's events for the node events: a deletion
// is a loss, then a resume (deleted).
var nodeKinds = map[EventKind]lifecycle.EventKind{EventNodeDown: lifecycle.EventNodeDown,
	EventNodeUp: lifecycle.EventNodeUp, EventNodeDrain: lifecycle.EventNodeDrain, EventNodeResume: lifecycle.EventNodeResume,
	EventNodeDelete: lifecycle.EventNodeDown, EventNodeReshape: lifecycle.EventNodeReshape}

// nodeEvent takes a node down, brings it back, drains, resumes or
// deletes it (lifecycle's EventNodeDown, EventNodeUp, EventNodeDrain,
// EventNodeResume; a deletion is a loss, then deleted; with a lost-node
// grace, a loss sets the grace's end,
// evGrace) and reacts to what a loss freed, in the order it
// freed it: each attempt on the node ends lost with the work it threw
// away, the metrics hear of each record's slots with what its job held
// after it, and the jobs the loss ended end. Only a loss frees anything.
func (s *sim) nodeEvent(e Event) {
	if e.Kind == EventNodeReshape {
		s.reshape(e)
		return
	}
	kind := nodeKinds[e.Kind]
	o := s.c.Observe(s.now, lifecycle.Event{Kind: kind, Node: s.nodeIdx[e.Node]})
	defer s.deleted(e) // once what the loss freed is told
	if !o.Applied || kind != lifecycle.EventNodeDown {
		return
	}
	if g := s.in.LostNodeGrace; g > 0 {
		// The tasks the loss held end when its grace runs out, unless
		// the node is back by then (a stale end changes nothing).
		s.q.push(event{at: s.now + int64(g/time.Second), kind: evGrace, ref: s.nodeIdx[e.Node]})
	}
	s.lost(&o)
}

// lost reacts to what a node's loss, or the end of its grace, freed
// (Outcome.Freed, Ended).
func (s *sim) lost(o *lifecycle.Outcome) {
	for i, f := range o.Freed {
		t := s.c.Tasks.At(f.Task)
		held := s.c.Jobs[t.Job].Held
		for _, g := range o.Freed[i+1:] {
			if s.c.Tasks.At(g.Task).Job == t.Job {
				held += g.Slots
			}
		}
		if !t.Moving {
			// A node's loss ends every attempt it frees as Decide ends
			// one of EndLost, whatever follows for its task.
			s.rec.loseAttempt(t, lifecycle.AttemptLost)
		}
		s.rec.lostWork += f.LostWork
		s.released(f.Task, f.Slots, held, f.From)
	}
	for i, f := range o.Freed {
		ji := s.c.Tasks.At(f.Task).Job
		if slices.ContainsFunc(o.Freed[:i], func(g lifecycle.Freed) bool { return s.c.Tasks.At(g.Task).Job == ji }) {
			continue // told already
		}
		if slices.Contains(o.Ended, ji) {
			s.finished(ji)
		} else {
			s.touch(ji)
		}
	}
	s.leaving(o.Leaving)
}

// leaving promises the landing of each record a node's loss left
// holding a lost gang's parts on nodes still up (lifecycle's
// Outcome.Leaving), after the checkpoint time of the attempt the loss
// ended, as a preemption's (checkpointCost: the export gives it the time
// those parts took live to end): they hold their slots, and the task
// waits, until then.
func (s *sim) leaving(tis []int32) {
	for _, li := range tis {
		t := s.c.Tasks.At(li)
		cost := s.checkpointCost(t)
		s.c.Tasks.Stopping(li, s.now, cost)
		s.q.push(event{at: s.now + cost, kind: evLeftLanded, ref: li, ver: t.Ver})
	}
}

// leftLanded reacts to the landing of a lost gang's parts on nodes still
// up (leaving): their slots are free and the task waits again.
func (s *sim) leftLanded(o *lifecycle.Outcome) {
	for _, f := range o.Freed {
		s.freed(f.Task, f.Slots, f.From)
	}
	s.touch(o.Job)
}
