package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Store is the master's durable state: jobs, tasks, attempts, nodes, logs,
// usage and the event log. Every method of the embedded Tx runs in its own
// transaction; Update runs several in one.
type Store interface {
	Tx

	// Update runs fn in one read-write transaction and commits it when fn
	// returns nil; any error (or a panic) rolls everything back. fn must use
	// only tx, never the Store, for its reads and writes: with SQLite there
	// is a single writer and a nested write through the Store would wait for
	// the transaction that is waiting for it. fn may be called once only;
	// Update never retries.
	Update(ctx context.Context, fn func(tx Tx) error) error

	// Ping writes to the database and returns an error when it does not
	// take the write: a stopped or restarting server, a full disk, a
	// read-only file. Reads alone would miss the last two.
	Ping(ctx context.Context, at time.Time) error

	// Close releases the database. Everything acknowledged before Close is
	// durable.
	Close() error
}

// Tx is what can be read and written, either directly on a Store (one
// transaction per call) or inside Store.Update: the identity side (Auth)
// too, so that a change to users or credentials and the audit entry
// saying so are one transaction.
type Tx interface {
	Reader
	Writer
	Auth
}

// Reader is the read side. Lists are ordered by their identity (job id,
// task index, attempt number, log sequence, usage id, event sequence) so
// that callers can page with the After fields of the filters.
type Reader interface {
	// Job returns one job, or an error matching ErrNotFound.
	Job(ctx context.Context, id int64) (Job, error)
	// Jobs lists jobs by ascending id (= submission order).
	Jobs(ctx context.Context, f JobFilter) ([]Job, error)
	// Tasks lists tasks by (job id, index).
	Tasks(ctx context.Context, f TaskFilter) ([]Task, error)
	// Attempts lists attempts by (job id, index, attempt).
	Attempts(ctx context.Context, f AttemptFilter) ([]Attempt, error)
	// JobRecords returns one job with its tasks and their attempts as of
	// one instant (one read transaction): a task read ended shows its
	// attempt ended. An error matching ErrNotFound when there is no such
	// job.
	JobRecords(ctx context.Context, id int64) (JobRecords, error)
	// Nodes lists every registered node by name.
	Nodes(ctx context.Context) ([]Node, error)
	// Logs reads one task's log lines by (attempt, seq), after q.After.
	Logs(ctx context.Context, q LogQuery) ([]LogLine, error)
	// Usage lists usage records by ascending id.
	Usage(ctx context.Context, f UsageFilter) ([]Usage, error)
	// Reservations lists the stored reservations by job id.
	Reservations(ctx context.Context) ([]Reservation, error)
	// Marked reports whether mark name (MarkGrows) was set.
	Marked(ctx context.Context, name string) (bool, error)
	// Forgotten says what PruneJobs forgot, in all (zero: nothing).
	Forgotten(ctx context.Context) (Forgotten, error)
	// Outages lists the store outages the master recorded that overlap
	// [from, until], oldest first.
	Outages(ctx context.Context, from, until time.Time) ([]StoreOutage, error)
	// ConfigChanges lists what the configuration reloads in [from, until]
	// changed in the pools', projects' and licenses' settings, oldest
	// first.
	ConfigChanges(ctx context.Context, from, until time.Time) ([]ConfigChange, error)
	// Events lists the event log by ascending sequence.
	Events(ctx context.Context, f EventFilter) ([]Event, error)
	// NodeEvents lists the nodes' state changes (losses, returns, first
	// registrations, drains, resumes, deletions) by ascending sequence.
	NodeEvents(ctx context.Context, f NodeEventFilter) ([]NodeEvent, error)
	// Metrics lists a job's metric reports by ascending ID, the order in
	// which they were stored.
	Metrics(ctx context.Context, f MetricFilter) ([]Metric, error)
}

// Writer is the write side. Every state change is a compare-and-set: it
// names the state it expects and fails with an error matching ErrConflict
// (a *ConflictError) when the stored state differs, writing nothing.
type Writer interface {
	// CreateJob stores a job and all its tasks atomically, in state queued,
	// and returns the job with its new ID. Tasks get indexes 0..n-1 in the
	// order given.
	CreateJob(ctx context.Context, job Job, tasks []Task) (Job, error)
	// TransitionJob moves a job from t.From to t.To.
	TransitionJob(ctx context.Context, t JobTransition) (Job, error)
	// UpdateJob changes a live job's priority, class, weight or
	// preemptibility.
	UpdateJob(ctx context.Context, u JobUpdate) (Job, error)
	// HoldJob holds a live job, or releases it (JobHold): a held job
	// stays in its state, and no scheduling pass considers it. Holding a
	// held job, or releasing one not held, writes nothing.
	HoldJob(ctx context.Context, h JobHold) (Job, error)
	// MoveJobEnd moves the end of a job that ended in state (a
	// compare-and-set: ErrConflict when it is not ended so) to at, later
	// than the end it has: a killed job ends when its last task does,
	// after the kill that stored it killed. It writes no event: the
	// event log keeps the kill (the job's transition) and the task's end.
	MoveJobEnd(ctx context.Context, id int64, state JobState, at time.Time) (Job, error)
	// TransitionTask moves a task from t.From to t.To, opening or closing
	// its attempt as the transition requires.
	TransitionTask(ctx context.Context, t TaskTransition) (Task, error)
	// AmendLostEnd ends as its agent reported an attempt that the master
	// ended lost though it had exited before (LateExit), with its task,
	// its job and its usage records, and returns the records as cut.
	AmendLostEnd(ctx context.Context, l LateExit) (Task, []UsageTrim, error)
	// RecordPartExits keeps how parts of a multi-node attempt ended lost
	// exited, until every part's exit is known (PartExit), and returns
	// those it has.
	RecordPartExits(ctx context.Context, job int64, index, attempt int, parts []PartExit) ([]PartExit, error)
	// NoteLostExit notes on an attempt ended lost how and when its agent
	// reported it had ended before (LostExit), with its usage records cut
	// at that exit, which it returns.
	NoteLostExit(ctx context.Context, l LostExit) ([]UsageTrim, error)
	// NoteLeftEnded records, as an event of a lost attempt, that its
	// parts left running on nodes still up, asked to checkpoint, have
	// all ended at at.
	NoteLeftEnded(ctx context.Context, job int64, index, attempt int, at time.Time, note string) error

	// UpsertNode registers a node or replaces its pool, labels and GPUs;
	// it is then up, with a heartbeat at n.HeartbeatAt. A node that was
	// not up (or not registered) gets a NodeEvent at n.HeartbeatAt, a new
	// one (From "") with its shape (NodeEvent.Shape); so does one whose
	// pool, labels or GPUs change (To NodeReshaped, before its return
	// if it was not up), in the same transaction. n.Pool and n.Labels
	// are the agent's, which the row keeps; the shape keeps the labels
	// and pool in effect too (n.InEffect, nil: n.Labels; n.PoolInEffect,
	// "": n.Pool), which the row does not.
	UpsertNode(ctx context.Context, n Node) (Node, error)
	// Heartbeat records that a node was seen at the given time.
	Heartbeat(ctx context.Context, name string, at time.Time) error
	// SetNodeState moves a node from one state to another at at (zero:
	// now), and records the change as a NodeEvent.
	SetNodeState(ctx context.Context, name string, from, to NodeState, at time.Time) error
	// SetNodeDrain drains a node (d not nil) or makes it schedulable
	// again (nil) at at (zero: now) and returns it. Draining a drained
	// node replaces the reason and admin but keeps when the drain began.
	// A drain of a node that was not drained, and a resume of one that
	// was, are recorded as a NodeEvent at at (NodeSchedulable to
	// NodeDrained, or back).
	SetNodeDrain(ctx context.Context, name string, d *NodeDrain, at time.Time) (Node, error)
	// DeleteNode forgets a node, and records its deletion at at (zero:
	// now) as a NodeEvent to NodeDeleted that keeps what the node was
	// (NodeEvent.Deleted); a node of that name that registers later is a
	// new node. It does not look at tasks: the master checks that none
	// runs there.
	DeleteNode(ctx context.Context, name string, at time.Time) error
	// MoveNodes records that a configuration reload put each node of
	// moves in another pool, or gave it other labels, at at (zero:
	// now): a NodeEvent From NodeReconfigured To NodeRelabeled whose
	// Shape is the node's GPUs with the pool and labels the move gives
	// (the labels in effect: the agent's with the rule's over them).
	// The node's row (the agent's pool and labels) is left alone. A
	// name not registered is ErrNotFound, and nothing is recorded.
	MoveNodes(ctx context.Context, moves []NodeMove, at time.Time) error
	// NodeLeaving records that the agent of node name said it is
	// leaving at at (zero: now): a NodeEvent From NodeUp To NodeLeaving.
	// From then until the node left, or its agent registers again, it
	// takes no new task. The node's row is unchanged.
	NodeLeaving(ctx context.Context, name string, at time.Time) error
	// NodeStayed records that the agent of node name, leaving, registered
	// again at at (zero: now) while its node was up: a NodeEvent From
	// NodeLeaving To NodeUp. Its leave is over without the node going
	// down; it takes tasks again, unless an admin drained it. The node's
	// row is unchanged.
	NodeStayed(ctx context.Context, name string, at time.Time) error

	// AppendLogs stores log lines. A line whose (job, task, attempt, seq)
	// is already stored is ignored, so a batch may be re-sent safely.
	AppendLogs(ctx context.Context, lines []LogLine) error
	// AppendMetric stores one metric report of an attempt and returns it
	// with its ID; ok is false, and nothing is stored, when the task's
	// step is stored already (ErrNotFound: no such attempt).
	AppendMetric(ctx context.Context, m Metric) (out Metric, ok bool, err error)
	// RecordUsage stores one usage record and returns it with its ID.
	RecordUsage(ctx context.Context, u Usage) (Usage, error)
	// SetReservations stores each job's reservation in place of the one
	// it had; one that reserves nothing (Reservation.None) is forgotten.
	SetReservations(ctx context.Context, rs []Reservation) error
	// Mark sets mark name, which stays set: pruning and later marks leave
	// it alone.
	Mark(ctx context.Context, name string) error
	// RecordOutage keeps a store outage the master outlived, once the
	// store is back; one of the same start replaces it.
	RecordOutage(ctx context.Context, out StoreOutage) error
	// RecordConfigChanges keeps what a reload at at changed in the pools',
	// projects' and licenses' settings, in order; the same reload again
	// replaces them.
	RecordConfigChanges(ctx context.Context, at time.Time, what []string) error
	// PruneJobs forgets at most limit jobs that ended before endedBefore
	// and whose tasks hold no attempt, oldest first, with their tasks,
	// attempts, logs, metrics and events, and returns how many it
	// forgot. Usage records stay: they are the accounting. It counts
	// what it forgot in Forgotten, in the same transaction.
	PruneJobs(ctx context.Context, endedBefore time.Time, limit int) (int, error)
}

// Errors returned by the store, wrapped with what failed: test them with
// errors.Is.
var (
	// ErrNotFound: the job, task, attempt or node does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a compare-and-set found another state than expected.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: an argument is out of range, or a transition is not an
	// edge of the state machine.
	ErrInvalid = errors.New("invalid")
	// ErrCorrupt: the database file is empty or damaged.
	ErrCorrupt = errors.New("damaged database")
)

// ConflictError says what a compare-and-set expected and what it found.
// errors.Is(err, ErrConflict) holds for it.
type ConflictError struct {
	What     string // e.g. "job 7", "task 7/2", "node gpu-3"
	Field    string // "state" or "attempt"
	Expected string
	Actual   string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: %s is %s, expected %s: %v", e.What, e.Field, e.Actual, e.Expected, ErrConflict)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
