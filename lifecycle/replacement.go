package lifecycle

import "github.com/allot-sched/allot/sched"

// Replacement is the record of a move or resize in flight, which both
// drivers keep of a running task that a move or resize re-placed, from
// the checkpoint request until the checkpoint lands (the task restarts
// on its new placement, or is requeued where it ran when a node of that
// placement went down) or its attempt ends otherwise (killed, lost,
// completed, failed): both drivers' task records embed it (TaskRecord:
// the Cluster's Task, the master's mtask), whose Enter lets go of it
// as the task leaves preempting. The placements stay
// each driver's own: the Cluster's record holds the new one in its Nodes,
// the old one in Old and what drains as a record of its own (Drain);
// the master's open attempt holds the old one, with its GPUs, and its
// next the GPUs reserved, by node name. A Replacement holding the new
// placement as slots per node would hold it twice in the Cluster (its
// Nodes, which every rule of a running task reads) and only a copy in
// the master, whose snapshot numbers the nodes up at each build, so that
// a node's index changes as others come and go: its GPUs are made into
// slots at each build (Split's next) and could not be kept between
// them. What both share of the placements is the rule of what a move or
// resize keeps of the old one (KeptOn: the master's choice of a
// resize's GPUs, and Split's drained part).
//
// The decisions on it are its methods, which both drivers call: Reserve
// when a move or resize applies (the master also when a restart reads
// the reservation back), Replacing whenever a rule asks whether one is
// in flight (Settle's skips by Replannable, an end promised, a lost
// node's rule), Split for the snapshot's two allocations, Landing for
// the facts Ending.Decide weighs at the landing (restart where it
// reserved, or requeue unplaced), and Unreserve when it lands or is
// abandoned.
type Replacement struct {
	// Kind is a move or a resize, which decides what of the old
	// placement the new one keeps and what drains (Split, Draining).
	Kind Replace
	// Since is when the move or resize re-placed the attempt and asked
	// for its checkpoint: the new placement runs from then (Split). The
	// master's views say the task checkpoints since then to the wall
	// clock's precision, from its stored transition (replacedAt), of
	// which Since is the seconds.
	Since int64
	// For is the job the move or resize makes room for, by the
	// driver's id of it (0: none, as for growth), and Why a shrink's
	// rule in words: what the views say of it. The master keeps both
	// (a restart reads them back from the transition's event); the
	// Cluster, which has no views, leaves them zero.
	For int64
	Why string
	on  bool
}

// Reserve notes that a move or resize (kind) re-placed the attempt at
// at, for job forJob (0: none), for the reason why ("" for none).
func (r *Replacement) Reserve(kind Replace, at, forJob int64, why string) {
	*r = Replacement{Kind: kind, Since: at, For: forJob, Why: why, on: true}
}

// Replacing reports whether a move or resize is in flight: reserved and
// neither landed nor abandoned. Nothing is planned of such a task
// (Replannable), nor is an end promised for it until it lands (Task.Due).
func (r *Replacement) Replacing() bool { return r.on }

// Unreserve ends the move or resize in flight: its checkpoint landed
// (the task restarts on its new placement, or is requeued unplaced), or
// it was abandoned (the task killed, lost, or ended otherwise). It
// reports whether one was in flight, whose reservation the caller lets
// go of.
func (r *Replacement) Unreserve() bool {
	was := r.on
	*r = Replacement{}
	return was
}

// Split is what a snapshot shows of hold h, the attempt as it held its
// old placement, while the move or resize is in flight (Hold.Replaced
// at Since): placed, the task's hold on its new placement next, running
// from Since and not backfilled, and drained, the part of the old
// placement that drains by Kind (Draining: all of it for a move, what
// next does not keep of each node for a resize), preempting and moving
// until the checkpoint lands. drained's Nodes are appended to
// scratch[:0], which the caller may reuse once it copied them; placed's
// are next.
func (r *Replacement) Split(h *Hold, next, scratch []sched.NodeSlots) (placed, drained Hold) {
	return h.Replaced(next, Draining(scratch[:0], r.Kind, h.Nodes, next), r.Since)
}

// Landing fills in what Ending.Decide weighs of the move or resize when
// the attempt's checkpoint lands: whether one is in flight, and if so
// whether a node of its new placement is down since (anyDown, asked
// only then), when the task does not restart there (Restartable) but
// waits again where it ran.
func (r *Replacement) Landing(e *Ending, anyDown func() bool) {
	e.Replacing = r.on
	e.AnyDown = r.on && anyDown()
}
