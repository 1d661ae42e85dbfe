package lifecycle

import "github.com/allot-sched/allot/sched"

// Op is what applying a plan asks the driver to do to the cluster.
type Op uint8

// The ops, in the order Decide lists them.
const (
	// OpPreempt asks a running task to checkpoint and stop; it keeps its
	// slots until its checkpoint lands (the driver reports it back).
	OpPreempt Op = iota + 1
	// OpMove and OpResize checkpoint a running task and resume it on
	// Nodes at once, in the same attempt; what of the old placement the
	// new one does not keep (Draining) drains like a preempted task's.
	OpMove
	OpResize
	// OpStart launches one waiting task of a job on Nodes.
	OpStart
)

var opNames = [...]string{OpPreempt: "preempt", OpMove: "move", OpResize: "resize", OpStart: "start"}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op?"
}

// Replace is the re-placement a move or resize op makes.
func (o Op) Replace() Replace {
	if o == OpResize {
		return Resize
	}
	return Move
}

// ChargesBudget reports whether e counts as a preemption of its task's
// project for the preemption budget: a preemption and a move make room
// for another job and do; a resize does when it shrinks the task for
// another job (For, a fair-share pool giving back), not when the task
// grows for its own sake on spare slots. Both drivers charge by it.
func (e *Effect) ChargesBudget() bool {
	switch e.Op {
	case OpPreempt, OpMove:
		return true
	case OpResize:
		return e.For >= 0
	}
	return false
}

// Effect is one decision of a plan, named in the driver's terms: the task
// record it acts on rather than the snapshot's allocation. A live driver
// persists effects before acting on them, so that a restart neither
// repeats nor loses one; the simulator acts on them at once.
type Effect struct {
	Op Op
	// Task is the task acted on (preempt, move, resize): the record
	// Decide's tasks name, or the snapshot's allocation where a driver
	// names none (the master); for a start, -1 from Decide and the
	// launched task once Step applied it.
	Task int32
	// Job is the snapshot's job to start a task of (start), -1 otherwise.
	Job int
	// For is the snapshot's job a preemption, move or shrink makes room
	// for (the plan's For), -1 otherwise (a start, an elastic task's
	// growth): what the master's reasons name.
	For int
	// Nodes is the new placement (move, resize, start). It is the plan's
	// slice, valid until the scheduler's next pass.
	Nodes    []sched.NodeSlots
	Backfill bool

	// What the effect does, filled in by Cluster.Step (Decide leaves
	// them zero). Launches, First and the Slots of a start or preemption
	// are resolved before any effect of the pass is applied, for its
	// Persister to store; the rest, and a start's Task, are what
	// applying it did, for its Applier.
	//
	// Launches is the task a start launches: its number in its job, the
	// times it was rescheduled and its remaining work (Job.Launch's
	// rule, nextLaunch). Slots is what a preemption asks back, a start
	// takes, or a move or resize adds (Replaced.Delta, once applied);
	// LostWork the slot-seconds of work a preemption, move or resize
	// threw away; Replaced what a move or resize kept and drains.
	Launches Resumed
	Slots    int
	LostWork int64
	Replaced Replaced
	// HeldBefore is what a started task's job held just before the start
	// (0: the job was idle until now), once applied.
	HeldBefore int
	// First says a start is the first of a job of a multifactor pool,
	// which started with priority Priority.
	First bool

	// Priority is a start's multi-factor priority in its pass (the
	// plan's, sched.Start.Priority; 0 outside multifactor pools), set by
	// Decide.
	Priority float64
}

// Decide appends to dst the effects of plan, made from a snapshot whose
// allocation i is task record tasks[i] (tasks nil: the effect's Task is
// the allocation's index, which the master resolves itself), in the order
// they must be applied: preemptions, moves, resizes, then starts. The core
// placed moves and starts on slots net of what the preemptions and earlier
// moves leave draining, so applying them in another order could put two
// tasks on one slot for a moment, which a live cluster must never do.
func Decide(dst []Effect, plan *sched.Plan, tasks []int32) []Effect {
	for _, p := range plan.Preemptions {
		dst = append(dst, Effect{Op: OpPreempt, Task: taskOf(tasks, p.Alloc), Job: -1, For: p.For})
	}
	for _, m := range plan.Moves {
		dst = append(dst, Effect{Op: OpMove, Task: taskOf(tasks, m.Alloc), Job: -1, For: m.For, Nodes: m.Nodes})
	}
	for _, r := range plan.Resizes {
		dst = append(dst, Effect{Op: OpResize, Task: taskOf(tasks, r.Alloc), Job: -1, For: r.For, Nodes: r.Nodes})
	}
	for _, st := range plan.Starts {
		dst = append(dst, Effect{Op: OpStart, Task: -1, Job: st.Job, For: -1, Nodes: st.Nodes, Backfill: st.Backfill,
			Priority: st.Priority})
	}
	return dst
}

// taskOf is the task allocation a stands for (Decide).
func taskOf(tasks []int32, a int) int32 {
	if tasks == nil {
		return int32(a)
	}
	return tasks[a]
}

// Settled reports whether the passes at one instant may stop after a pass
// whose plan started starts tasks and preempted, moved or resized changes:
// when it did nothing, or when every pool's plan is maximal (oneShot: FIFO
// and EASY plans, and conservative backfilling, which compresses its
// reservations once per event) and it preempted nothing, so a confirming
// pass would start nothing more.
func Settled(starts, changes int, oneShot bool) bool {
	return starts+changes == 0 || (oneShot && changes == 0)
}
