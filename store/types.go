package store

import (
	"encoding/json"
	"time"
)

// Kind is what a job is.
type Kind string

// The job kinds.
const (
	KindExperiment  Kind = "experiment"
	KindCommand     Kind = "command"
	KindNotebook    Kind = "notebook"
	KindShell       Kind = "shell"
	KindTensorBoard Kind = "tensorboard"
)

// Job is what a user submitted. Times are stored with nanosecond precision
// and returned in UTC.
type Job struct {
	ID            int64 // assigned by CreateJob; increasing in submission order
	Name          string
	Kind          Kind
	Project       string
	User          string
	Pool          string
	State         JobState // queued on creation
	Reason        string   // why the job is in its state (last transition's reason)
	Priority      int      // 1..99, lower is more important
	PriorityClass string   // HIGH, NORMAL, LOW or ""
	Weight        float64  // > 0
	Preemptible   bool
	Slots         int           // slots (GPUs) per task, >= 0
	MaxConcurrent int           // tasks running at once, 0 = no cap
	MaxSlots      int           // slots held at once, 0 = no cap
	TimeLimit     time.Duration // 0 = none
	// QOS and Nice are set by a change (UpdateJob) after submission;
	// nil keeps the job file's (Spec's resources.qos and nice).
	QOS         *string
	Nice        *int
	Entrypoint  string
	Environment map[string]string
	Spec        json.RawMessage // the original job file as JSON; nil = none
	SubmittedAt time.Time       // zero on CreateJob = now
	EndedAt     time.Time       // zero until the job reaches a terminal state
	// HeldBy names who held the job (HoldJob), "" while it is not held;
	// HeldAt is when. A held job keeps its state (queued) and its
	// submission time, and no scheduling pass considers it.
	HeldBy string
	HeldAt time.Time
}

// Held reports whether the job is held (HoldJob).
func (j Job) Held() bool { return j.HeldBy != "" }

// JobHold holds a live job (Hold) or releases it, by By at At (zero:
// now); Reason is the event's.
type JobHold struct {
	ID     int64
	Hold   bool
	By     string
	At     time.Time
	Reason string
}

// Task is one unit that holds an allocation: a trial, a command, a notebook.
type Task struct {
	JobID           int64
	Index           int // 0..n-1 within its job
	State           TaskState
	Reason          string
	Hyperparameters json.RawMessage // nil = none
	// Restarts counts the attempts that ended with the task going back to
	// queued or preempted, i.e. how many times it has had to start again.
	Restarts      int
	CheckpointDir string
	// Attempt is the number of the current (or last) attempt; 0 = never
	// started. Attempts are numbered 1, 2, 3... per task, without gaps.
	Attempt   int
	UpdatedAt time.Time // time of the last transition
	// Reserved is where a preempting task restarts as soon as its attempt
	// ends, without queueing (a move or a resize): set by the transition
	// to preempting that carries TaskTransition.Reserve, cleared by the
	// next transition. nil otherwise.
	Reserved []Placement
}

// GPURef names one GPU of an allocation.
type GPURef struct {
	Index int    `json:"index"`
	UUID  string `json:"uuid,omitempty"`
}

// Placement is the part of an attempt on one node. A gang has several.
type Placement struct {
	Node string   `json:"node"`
	GPUs []GPURef `json:"gpus"`
}

// Attempt is one run of a task on some nodes.
type Attempt struct {
	JobID     int64
	Index     int
	Number    int // 1, 2, 3...
	Placement []Placement
	StartedAt time.Time // when the task entered starting
	RunningAt time.Time // when it first entered running in this attempt; zero if never
	EndedAt   time.Time // zero while the attempt is open
	// ExitedAt is when the attempt's processes exited, by its agents'
	// exit reports (AttemptEnd.ExitedAt): what its usage is charged
	// until. It is EndedAt, when the master heard of the end and freed
	// the GPUs, for an attempt ended on no agent's word or before the
	// store kept it (migration 0018), and at most EndedAt; zero while
	// the attempt is open.
	ExitedAt time.Time
	EndState AttemptState
	ExitCode *int // nil when unknown or not exited
	Reason   string
	// Backfilled marks an attempt started on slots that a blocked job
	// could not use (TaskTransition.Backfill).
	Backfilled bool
	// StartPriority is the multi-factor priority its job started it
	// with (TaskTransition.StartPriority); 0 for none, and for the
	// attempts started before migration 0022.
	StartPriority float64
	// ReportedEnd and ReportedReason, for an attempt ended lost, are how
	// its agent, back, reported its processes had ended before the master
	// gave up on it (NoteLostExit: completed, failed, preempted or killed,
	// and the agent's words); "" for any other attempt, and for one whose
	// agent reported nothing or whose late exit amended it (LateExit).
	ReportedEnd    AttemptState
	ReportedReason string
	// Checkpoint is what the attempt's checkpoint directory held as it
	// ended, by its agents (AttemptEnd.Checkpoint, migration 0029).
	Checkpoint Checkpoint
}

// Checkpoint is what an attempt's checkpoint directory held as its
// processes exited, by its agents' word (api.Report.Checkpoint).
type Checkpoint string

// Checkpoint values. CheckpointUnknown is every attempt's whose agents
// did not say (older agents, an end no agent reported), and every one
// ended before migration 0029.
const (
	CheckpointUnknown Checkpoint = ""
	CheckpointWritten Checkpoint = "written" // a part's directory held anything
	CheckpointNone    Checkpoint = "none"    // every part's directory was empty
)

// Valid reports whether c is one of the Checkpoint values.
func (c Checkpoint) Valid() bool {
	return c == CheckpointUnknown || c == CheckpointWritten || c == CheckpointNone
}

// Open reports whether the attempt has not ended.
func (a Attempt) Open() bool { return a.EndedAt.IsZero() }

// GPU is one device of a node.
type GPU struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Type      string `json:"type"` // slot type, e.g. h100
	MemoryMiB int64  `json:"memory_mib"`
}

// Node is a registered agent.
type Node struct {
	Name         string
	Pool         string
	Labels       map[string]string
	GPUs         []GPU
	State        NodeState
	RegisteredAt time.Time // first registration, or the last join-token takeover (TakeOverNode); kept across re-registrations
	HeartbeatAt  time.Time // on UpsertNode: the registration time, zero = now
	// Drain is an admin's drain of the node, nil when it is schedulable.
	// UpsertNode neither sets nor clears it: an agent that registers
	// again stays drained.
	Drain *NodeDrain
	// InEffect is, for UpsertNode, the labels in effect as the master
	// matches them (Labels, the agent's, with its node rule's over them,
	// lifecycle.NodeLabels; nil: Labels), which the registration's node
	// event keeps beside the agent's: the row keeps the agent's only,
	// and a reload's rules are not kept. In a registration's event
	// (NodeEvent.Shape) it is what was recorded, never nil (empty for
	// none) where it was, and nil in one recorded before they were. It
	// is nil elsewhere.
	InEffect map[string]string
	// PoolInEffect is, for UpsertNode, the pool the master put the node
	// in ("": Pool), which the registration's node event keeps beside
	// Pool, the agent's: the row keeps the agent's only, as the rule
	// that pinned the node to another is gone at the next reload. In a
	// node event's Shape it is the pool the node was in from then on,
	// never empty: a registration's as recorded (one recorded before
	// migration 0017 kept only the pool in effect, in Pool, read as
	// both), a reload's move its Pool. It is "" elsewhere.
	PoolInEffect string
}

// NodeDrain says that an admin asked for no new task to start on a node.
type NodeDrain struct {
	At     time.Time // when the drain began
	Reason string
	By     string // the admin
}

// Stream is a log stream.
type Stream string

// The log streams.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// LogLine is one line of a task attempt's output. Seq is assigned by the
// sender, increasing from 1 within the attempt, so that a re-sent batch is
// recognised and ignored.
type LogLine struct {
	JobID   int64
	Index   int
	Attempt int
	Seq     int64
	Time    time.Time // zero = now
	Stream  Stream
	Text    string
}

// LogPos is a position in a task's logs: lines sort by (Attempt, Seq).
type LogPos struct {
	Attempt int
	Seq     int64
}

// LogQuery selects one task's lines after a position.
type LogQuery struct {
	JobID   int64
	Index   int
	Attempt int    // only this attempt; 0 = all attempts
	After   LogPos // lines strictly after this position
	Limit   int    // at most this many; 0 = no limit
}

// Usage is GPU time consumed over an interval, for fair share.
type Usage struct {
	ID         int64 // assigned by RecordUsage
	Project    string
	User       string
	Pool       string
	JobID      int64 // the job that used it, 0 = none
	Index      int
	Attempt    int
	Start      time.Time
	End        time.Time // >= Start
	GPUSeconds float64   // >= 0
}

// UsageFilter selects usage records.
type UsageFilter struct {
	Since   time.Time // records whose End is at or after Since; zero = all
	Pool    string    // "" = all pools
	AfterID int64
	Limit   int
	// FromJobID and ToJobID bound the records' job ids, both included;
	// 0 = no bound.
	FromJobID, ToJobID int64
	// JobIDs, when not nil, selects the records of these jobs only: a
	// page of jobs spread over a long id range (one user's) reads its own.
	JobIDs []int64
}

// Event is one entry of the event log: a job or task transition, or a
// change of a job's priority, weight, preemptibility, time limit, QOS or
// nice (then From == To,
// Reason says what changed and Change the same as values). The store
// writes it in the transaction of the change.
type Event struct {
	Seq     int64 // increasing
	JobID   int64
	Index   int // task index, or -1 for the job itself
	Attempt int // task's attempt number after the transition; 0 for jobs
	From    string
	To      string
	At      time.Time
	Reason  string
	// Cause, PartRan, ForJob and Why are a task transition's
	// (TaskTransition). ForJob is 0 for the events written before the
	// store kept it (migration 0019), Why "" for those written before
	// migration 0021.
	Cause   Cause
	PartRan bool
	ForJob  int64
	Why     string
	// Change is, for a change of a job (UpdateJob), what it changed;
	// nil for every other event.
	Change *JobChange
}

// JobChange is what a change of a job's priority, weight,
// preemptibility, time limit, QOS or nice changed, each field before and
// after, both nil for a field it left as it was. The priority class is
// not kept: it follows from the priority wherever the master changes it
// (the reason still names it). A QOS of "" is the configuration's
// default.
type JobChange struct {
	FromPriority, ToPriority       *int
	FromWeight, ToWeight           *float64
	FromPreemptible, ToPreemptible *bool
	FromTimeLimit, ToTimeLimit     *time.Duration
	FromQOS, ToQOS                 *string
	FromNice, ToNice               *int
	// FromHeld and ToHeld are a hold's or a release's (HoldJob).
	FromHeld, ToHeld *bool
}

// NodeEvent is a change of a node's state: lost, or up again (From ""
// for a node's first registration, or one after its deletion); an
// admin's drain (From NodeSchedulable, To NodeDrained) or resume (back);
// its deletion (From its state then, To NodeDeleted); or a registration
// that changed its inventory (From its state then, To NodeReshaped); or
// a configuration reload that moved it to another pool or changed its
// labels (From NodeReconfigured, To NodeRelabeled; To NodeReshaped for a
// move recorded before labels were).
type NodeEvent struct {
	Seq      int64 // increasing
	Node     string
	From, To NodeState
	At       time.Time
	// Deleted is, for a deletion, the node as it was deleted: its pool,
	// labels, GPUs and state (From), the rest zero; nil otherwise.
	Deleted *Node
	// Shape is, for a registration that made the node (From "", To
	// NodeUp) or changed its inventory (To NodeReshaped), the node as it
	// registered: its pool, labels (the agent's) and GPUs, and the
	// labels in effect (InEffect, nil where recorded before they were),
	// the rest zero (for a reload's move, From NodeReconfigured, the pool
	// is the one the configuration put it in, not the agent's, and for
	// one To NodeRelabeled the labels are those in effect, the rule's
	// over the agent's, and InEffect is nil); nil otherwise, and for a
	// new node of no GPUs (a registration recorded before shapes were
	// reads alike).
	Shape *Node
}

// NodeMove is a node that a configuration reload put in pool Pool, with
// labels Labels in effect (the agent's with the rule's over them; nil for
// none) (MoveNodes).
type NodeMove struct {
	Node, Pool string
	Labels     map[string]string
}

// NodeEventFilter selects node events.
type NodeEventFilter struct {
	AfterSeq int64
	// Since keeps events at or after this time; zero = all.
	Since time.Time
}

// EventFilter selects events.
type EventFilter struct {
	JobID    int64 // 0 = all jobs
	AfterSeq int64
	// Since keeps events at or after this time; zero = all.
	Since time.Time
	// To keeps events whose To is this state; "" = all. Events into
	// preempting are indexed by time, so To "preempting" with Since reads
	// only the events it returns.
	To    string
	Limit int
	// Notes keeps the notes of held attempts (Cause.Note: a node's loss
	// or return, which change no state) among the events; false leaves
	// them out, as every reader of transitions wants (the decision log,
	// the what-if export, the restores, the preemption budget), for
	// their From and To would read as a transition into the task's
	// state. allot job events asks for them.
	Notes bool
}

// JobFilter selects jobs. Empty fields match everything.
type JobFilter struct {
	States  []JobState
	Pool    string
	Project string
	User    string
	// Projects, when not nil, keeps jobs of these projects, and jobs of
	// user OrUser (when set) in any project: what one user may read.
	Projects []string
	OrUser   string
	// InProjects, when not empty, keeps only jobs of these projects (a
	// project's subtree, GET /jobs?subprojects=true), besides Project.
	InProjects []string
	AfterID    int64 // ids strictly greater
	BeforeID   int64 // ids strictly smaller; 0 = no bound
	Limit      int   // 0 = no limit
	// Desc lists by descending id (newest first), for paging back from
	// BeforeID.
	Desc bool
	// SubmittedSince and SubmittedBefore bound the submission time
	// [since, before); zero = no bound. ActiveSince keeps the jobs that
	// had not ended by then (those that never ended included).
	SubmittedSince, SubmittedBefore, ActiveSince time.Time
}

// TaskFilter selects tasks.
type TaskFilter struct {
	JobID  int64 // 0 = all jobs
	States []TaskState
}

// AttemptFilter selects attempts.
type AttemptFilter struct {
	JobID    int64 // 0 = all jobs
	OpenOnly bool  // only attempts that have not ended
	// FromJobID and ToJobID bound the job ids, both included; 0 = no
	// bound. A page of jobs reads its attempts with them.
	FromJobID, ToJobID int64
	// JobIDs, when not nil, selects the attempts of these jobs only.
	JobIDs []int64
}

// JobTransition is a compare-and-set of a job's state.
type JobTransition struct {
	ID     int64
	From   JobState
	To     JobState
	At     time.Time // zero = now
	Reason string
	// EndedAt is when a job moving to a terminal state ended, where that
	// is before At: its last task's processes exited (by its agents'
	// word, Attempt.ExitedAt) before the master heard of it, as sacct's
	// End is the job's end. Zero = At; never after At, nor set for a
	// state that is not terminal. The event keeps At.
	EndedAt time.Time
}

// JobUpdate changes the fields of a live (non-terminal) job that users may
// change. Nil fields are kept. TimeLimit 0 removes the limit; QOS ""
// is the configuration's default QOS.
type JobUpdate struct {
	ID            int64
	Priority      *int
	PriorityClass *string
	Weight        *float64
	Preemptible   *bool
	TimeLimit     *time.Duration
	QOS           *string
	Nice          *int
	At            time.Time // zero = now
	Reason        string
}

// AttemptEnd closes the current attempt.
type AttemptEnd struct {
	State    AttemptState
	ExitCode *int // nil = unknown
	// ExitedAt is when the attempt's processes exited, by its agents'
	// word, between the attempt's start and the transition's At (which
	// stays when the master heard of it and freed its GPUs); zero is At.
	ExitedAt time.Time
	// Checkpoint is what the attempt's checkpoint directory held as it
	// ended (Attempt.Checkpoint); CheckpointUnknown when its agents did
	// not say.
	Checkpoint Checkpoint
}

// TaskTransition is a compare-and-set of a task's state (and, if Attempt
// is non-zero, of its current attempt number).
type TaskTransition struct {
	JobID   int64
	Index   int
	From    TaskState
	To      TaskState
	Attempt int       // expected current attempt; 0 = any
	At      time.Time // zero = now
	Reason  string
	// Placement opens the task's next attempt (its Attempt + 1); required
	// when To is starting and not allowed otherwise.
	Placement []Placement
	// End closes the current attempt; required when the task leaves an
	// active state (starting, running, preempting, killing) for an
	// inactive one, and not allowed otherwise.
	End *AttemptEnd
	// CheckpointDir, when not empty, replaces the task's checkpoint dir.
	CheckpointDir string
	// Reserve, allowed only when To is preempting, is where the task is to
	// restart as soon as its attempt ends (Task.Reserved). Every
	// transition sets Task.Reserved to it, so any other clears it.
	Reserve []Placement
	// Backfill, allowed only when To is starting, marks the attempt it
	// opens as started by backfill (Attempt.Backfilled).
	Backfill bool
	// StartPriority, allowed only when To is starting, is the
	// multi-factor priority the task's job starts the attempt with, in
	// a multifactor pool (0: none); the attempt keeps it
	// (Attempt.StartPriority), so that a restarted master shows a
	// running job's priority as it started, as it did before. It must
	// be finite.
	StartPriority float64
	// Cause says why the transition was made, where a program needs to
	// know (the Cause constants); PartRan, for one from starting that
	// ends an attempt no agent reported on, that a part of the task's
	// gang ran, so the master took the task to have run though its
	// attempt never reached running. Both are kept in the event log
	// (Event), for the what-if export, the decision log and the
	// preemption budgets.
	Cause   Cause
	PartRan bool
	// ForJob, allowed only when To is preempting, is the job the
	// preemption, move or shrink makes room for (0: none, as for
	// growth); the event keeps it (Event.ForJob), so that an attempt's
	// view names who preempted it after a restart too.
	ForJob int64
	// Why, allowed only when To is preempting, is for a resize that
	// shrinks the task for ForJob the rule that lets that job take its
	// slots, in words ("quota reclaim: project nlp is below its quota,
	// project vision over it"), which the reason says too: the event
	// keeps it apart (Event.Why), so that a restarted master's views say
	// it without reading it back from the reason. "" otherwise.
	Why string
}

// Reservation is what conservative backfilling carries for a waiting job
// from one scheduling pass to the next: its reserved start and, on pools
// that reserve per node, its slots there. The master stores it so that a
// restart does not change the next pass.
type Reservation struct {
	JobID int64
	At    int64 // Unix seconds; 0: no start known
	Nodes []ReservedSlots
}

// ReservedSlots are slots reserved on one node, named by its index among
// the nodes of the pass that made the reservation, as the core named it.
type ReservedSlots struct {
	Node  int32 `json:"node"`
	Slots int32 `json:"slots"`
}

// None reports whether r reserves nothing.
func (r Reservation) None() bool { return r.At == 0 && len(r.Nodes) == 0 }
