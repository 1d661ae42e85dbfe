package store

import (
	"fmt"
	"math"
	"time"

	"github.com/allot-sched/allot/lifecycle"
)

// JobState is where a job is in its life: the shared vocabulary's
// (lifecycle.JobState), so that the master, the store and the simulator
// name states alike. The values are what the jobs table holds (its CHECK
// constraint in migrations/*/0001_init.sql), never renamed.
type JobState = lifecycle.JobState

// The job states, lifecycle's under the names the master has always used.
// completed, failed and killed are terminal.
const (
	JobQueued    = lifecycle.JobQueued
	JobRunning   = lifecycle.JobRunning
	JobCompleted = lifecycle.JobCompleted
	JobFailed    = lifecycle.JobFailed
	JobKilled    = lifecycle.JobKilled
)

// TaskState is where a task is in its life: the shared vocabulary's
// (lifecycle.TaskState). The values are what the tasks table holds (its
// CHECK constraint in migrations/*/0001_init.sql), never renamed.
//
// A task is active (it holds an attempt and slots) in starting, running,
// preempting (a checkpoint request was sent) and killing (a kill was
// sent). It is idle in queued and preempted. completed, failed and killed
// are terminal.
type TaskState = lifecycle.TaskState

// The task states, lifecycle's under the names the master has always used.
const (
	TaskQueued     = lifecycle.TaskQueued
	TaskStarting   = lifecycle.TaskStarting
	TaskRunning    = lifecycle.TaskRunning
	TaskPreempting = lifecycle.TaskPreempting
	TaskKilling    = lifecycle.TaskKilling
	TaskPreempted  = lifecycle.TaskPreempted
	TaskCompleted  = lifecycle.TaskCompleted
	TaskFailed     = lifecycle.TaskFailed
	TaskKilled     = lifecycle.TaskKilled
)

// AttemptState is how an attempt ended: the shared vocabulary's
// (lifecycle.AttemptState). The values are what the attempts table holds
// (its CHECK constraint in migrations/*/0001_init.sql, which also allows
// the empty string, an open attempt's), never renamed.
type AttemptState = lifecycle.AttemptState

// The attempt end states, lifecycle's under the names the master has
// always used.
const (
	AttemptCompleted = lifecycle.AttemptCompleted
	AttemptFailed    = lifecycle.AttemptFailed
	AttemptKilled    = lifecycle.AttemptKilled
	AttemptPreempted = lifecycle.AttemptPreempted
	AttemptLost      = lifecycle.AttemptLost // its agent disappeared
)

// NodeState is whether a node is reachable.
type NodeState string

// The node states. A node is lost when its agent went silent, and left
// when its agent said goodbye (a clean shutdown that reported its tasks'
// ends); either way it takes no task until it registers again.
const (
	NodeUp   NodeState = "up"
	NodeLost NodeState = "lost"
	NodeLeft NodeState = "left"
)

// The node history's drain states (NodeEvent), apart from whether the
// node is reachable: an admin's drain goes from NodeSchedulable to
// NodeDrained, a resume back. A node is never in them (Node.State).
const (
	NodeSchedulable NodeState = "schedulable"
	NodeDrained     NodeState = "drained"
)

// NodeDeleted is the node history's state of a node an admin deleted
// (DeleteNode; NodeEvent.Deleted keeps what it was). A node is never
// in it: a deleted node leaves the nodes, and one of its name that
// registers later goes from "" to NodeUp, a new node.
const NodeDeleted NodeState = "deleted"

// NodeLeaving is the node history's state of an agent's goodbye: its
// first leaving sync (api.Sync.Leaving), from which the node takes no new
// task while the agent stops its tasks, until it left (NodeLeft) or its
// agent registers again: before it left, a NodeEvent From NodeLeaving To
// NodeUp (NodeStayed). A node is never in it: its State stays NodeUp.
const NodeLeaving NodeState = "leaving"

// NodeReshaped is the node history's state of a registration that
// changed a node's inventory: its agent registered again with other
// GPUs (count, type, UUIDs or memory), labels or pool than the node had
// (UpsertNode; NodeEvent.Shape keeps the new ones, and the labels in
// effect then, Node.InEffect, as a new node's registration does). A
// change of the labels in effect alone is a reload's (NodeRelabeled).
// A node is never in it: From is its state then, and a node not up goes
// on to NodeUp in a second event of the same registration.
const NodeReshaped NodeState = "reshaped"

// NodeReconfigured is the From of a node history's NodeReshaped event
// that a configuration reload made (MoveNodes): its node rules or
// default pool put the node in another pool, whose name the event's
// Shape has. A registration keeps the agent's pool there instead, and
// the pool the configuration then gave the node in its Shape's
// PoolInEffect (since migration 0017; before, it kept that pool alone,
// in Pool). A node is never in it.
const NodeReconfigured NodeState = "reconfigured"

// NodeRelabeled is the To of a node history event From NodeReconfigured
// that a configuration reload, or a master started on a changed
// configuration, made (MoveNodes): its node rules put the node in
// another pool or gave it other labels, and the event's Shape has the
// pool and the labels in effect (the agent's with the rule's over them,
// lifecycle.NodeLabels) in its Labels, where a move recorded before
// labels were (To NodeReshaped) has the agent's labels. With the labels
// in effect that each registration keeps (Node.InEffect; not in one
// recorded before migration 0016), the history has a node's labels in
// effect at every instant: a master started on a changed configuration
// compares its labels with the last recorded. A node is never in it.
const NodeRelabeled NodeState = "relabeled"

func (s NodeState) valid() bool { return s == NodeUp || s == NodeLost || s == NodeLeft }

// checkJobEdge reports whether from → to is an edge of the job state
// graph (lifecycle.JobEdge): any move between distinct states except out
// of a terminal one.
func checkJobEdge(from, to JobState) error {
	if err := lifecycle.JobEdge(from, to); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// checkTaskEdge validates a task transition's shape: the edge itself,
// lifecycle's graph (lifecycle.TaskEdge, which the simulator's task
// records keep to as well), and what the transition must carry: a
// placement to open an attempt, an attempt's end to close one.
func checkTaskEdge(t TaskTransition) error {
	from, to := t.From, t.To
	if t.Cause.Note() {
		return checkTaskNote(t)
	}
	if err := lifecycle.TaskEdge(from, to); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	switch {
	case to == TaskStarting && len(t.Placement) == 0:
		return invalidf("task → starting needs a placement")
	case to != TaskStarting && len(t.Placement) > 0:
		return invalidf("placement given for %q → %q, only → starting opens an attempt", from, to)
	case to != TaskStarting && t.Backfill:
		return invalidf("backfill mark given for %q → %q, only → starting opens an attempt", from, to)
	case to != TaskStarting && t.StartPriority != 0:
		return invalidf("start priority given for %q → %q, only → starting opens an attempt", from, to)
	case math.IsNaN(t.StartPriority) || math.IsInf(t.StartPriority, 0):
		return invalidf("start priority %v is not a finite number", t.StartPriority)
	case to != TaskPreempting && len(t.Reserve) > 0:
		return invalidf("reserved placement given for %q → %q, only → preempting reserves one", from, to)
	case to != TaskPreempting && t.ForJob != 0:
		return invalidf("job made room for given for %q → %q, only → preempting makes room", from, to)
	case to != TaskPreempting && t.Why != "":
		return invalidf("rule of a shrink given for %q → %q, only → preempting shrinks a task", from, to)
	}
	closes := from.Active() && !to.Active()
	switch {
	case closes && t.End == nil:
		return invalidf("task %q → %q ends its attempt: an attempt end is required", from, to)
	case !closes && t.End != nil:
		return invalidf("task %q → %q has no attempt to end", from, to)
	case closes && !t.End.State.Valid():
		return invalidf("unknown attempt end state %q", t.End.State)
	case closes && !t.End.Checkpoint.Valid():
		return invalidf("unknown attempt checkpoint %q (expected %q, %q or none given)", t.End.Checkpoint,
			CheckpointWritten, CheckpointNone)
	case closes && !t.At.IsZero() && t.End.ExitedAt.After(t.At):
		return invalidf("attempt exited at %s, after its end at %s", t.End.ExitedAt.Format(time.RFC3339Nano),
			t.At.Format(time.RFC3339Nano))
	}
	if err := checkPlacement(t.Placement); err != nil {
		return err
	}
	return checkPlacement(t.Reserve)
}

func checkPlacement(ps []Placement) error {
	for i, p := range ps {
		if p.Node == "" {
			return invalidf("placement %d: node name is empty", i)
		}
	}
	return nil
}

// checkTaskNote validates a note (Cause.Note): it keeps its task in the
// active state it is in, From and To alike, and carries nothing a
// transition would change the task or its attempt by.
func checkTaskNote(t TaskTransition) error {
	switch {
	case t.From != t.To:
		return invalidf("a note (cause %s) keeps its task's state: %q → %q", t.Cause, t.From, t.To)
	case !t.From.Active():
		return invalidf("a note (cause %s) is of an open attempt: the task is %q", t.Cause, t.From)
	case len(t.Placement) > 0 || t.End != nil || len(t.Reserve) > 0 || t.Backfill || t.StartPriority != 0 ||
		t.ForJob != 0 || t.Why != "" || t.CheckpointDir != "" || t.PartRan:
		return invalidf("a note (cause %s) changes nothing but the event log", t.Cause)
	}
	return nil
}
