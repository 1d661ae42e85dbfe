package sim

import "github.com/allot-sched/allot/sched"

// Consolidation (sched.Plan.Moves): the core moves a running task to other
// nodes to gather free slots for a waiting one. The task checkpoints and
// resumes on its new slots at once, in the same attempt; its old slots
// drain like a preempted task's for the pool's checkpoint cost. Until then
// the simulator keeps the old placement as a task record of its own,
// marked moving, which the snapshot reports as a Preempting, Moving
// allocation beside the running one, as the core expects.

// move re-places running task ti on nodes.
func (s *sim) move(ti int32, nodes []sched.NodeSlots) {
	oi := s.newTask() // may grow s.tasks: take pointers after it
	t, o := &s.tasks[ti], &s.tasks[oi]
	j := &s.jobs[t.job]
	o.job, o.id, o.attempt, o.start, o.from, o.work = t.job, t.id, -1, t.start, t.from, 0
	o.nodes = append(o.nodes[:0], t.nodes...)
	o.ver++
	o.preempting, o.moving, o.backfilled, o.limited, o.alive = true, true, false, false, true
	o.preemptAt = s.now
	s.running = append(s.running, oi)
	s.q.push(event{at: s.now + s.in.Pools[j.spec.Pool].CheckpointCost, kind: evCheckpoint, ref: oi, ver: o.ver})
	j.moving++

	t.lost += s.checkpointNow(t)
	t.from = s.now
	t.nodes = append(t.nodes[:0], nodes...)
	t.backfilled = false
	t.ver++ // the end event of the old placement no longer applies
	slots := sched.Slots(nodes)
	j.held += slots
	s.rec.hold(t.job, slots)
	s.rec.moves++
	if end, limited := s.taskEnd(t, j); end >= 0 {
		t.limited = limited
		s.q.push(event{at: end, kind: evEnd, ref: ti, ver: t.ver})
	}
}

// moved frees the old placement of a moved task once it has drained.
func (s *sim) moved(oi int32) {
	o := &s.tasks[oi]
	j := &s.jobs[o.job]
	slots := sched.Slots(o.nodes)
	j.held -= slots
	j.moving--
	if j.held == 0 {
		j.busy += s.now - j.busySince
	}
	s.rec.checkpointed(int64(slots) * (s.now - o.preemptAt))
	s.rec.hold(o.job, -slots)
	o.alive = false
	o.ver++
}

// dropMoves frees the draining old placements of a job that is ending.
func (s *sim) dropMoves(ji int32) {
	for _, ti := range s.running {
		if t := &s.tasks[ti]; t.alive && t.moving && t.job == ji {
			s.moved(ti)
		}
	}
}
