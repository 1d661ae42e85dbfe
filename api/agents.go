package api

import (
	"time"

	"github.com/allot-sched/allot/agent"
)

// The agents' protocol: registration, syncs, reports, commands and log
// batches, between the master and its node agents.

// Register is the body of POST /agents/register.
type Register struct {
	Name   string            `json:"name"`
	Pool   string            `json:"pool"` // the agent's --pool; "" for the default pool
	Labels map[string]string `json:"labels,omitempty"`
	GPUs   []GPU             `json:"gpus"`
	// Running lists the attempts whose processes run now; not those that
	// exited (Exited): the master takes the registration as a moment an
	// attempt it names ran, and charges it until then at least.
	Running []agent.TaskID `json:"running"`
	// Exited lists the attempts whose processes have exited and whose
	// exit reports are still to come: each report waits until the output
	// lines read before the exit are delivered, which a master outage
	// holds back. The master neither counts them as running nor ends them
	// as not run; their reports (api.Report.At, the exit) follow in the
	// syncs. Empty from an agent older than the field, which listed them
	// in Running; an agent sends it only when it names one, and registers
	// with them in Running again when a master older than the field
	// refuses it as unknown.
	Exited []agent.TaskID `json:"exited,omitempty"`
	// Version is the agent's build, for the master's logs and the Version
	// of Node.
	Version string `json:"version,omitempty"`
	// Leaving says the agent registers while it shuts down (after its
	// goodbye, api.Sync.Leaving), as it does when the master no longer
	// knows the node: the node goes on leaving, or starts to. A
	// registration without it comes from an agent that takes work: it
	// ends a leave of the node.
	Leaving bool `json:"leaving,omitempty"`
}

// RegisterReply answers a registration.
type RegisterReply struct {
	// SyncWaitS is how long the master holds a sync without commands.
	SyncWaitS int `json:"sync_wait_s"`
	// Commands are the reconciliation's kills, and any starts pending.
	Commands []Command `json:"commands"`
	// Credential is the node's own secret, sent once when the node joins
	// with a join token; the agent keeps it and presents it from then on.
	Credential string `json:"credential,omitempty"`
	// NodePlacement is where the master put the node. Its fields are
	// the reply's own in JSON (pool, pool_by_rule, labels), as they were
	// before the sync reply shared them.
	NodePlacement
	// PlacementGen is the generation of NodePlacement, which the agent
	// acknowledges in its syncs (Sync.PlacementGen); 0 from a master
	// older than the field, to which the agent then sends none.
	PlacementGen int64 `json:"placement_gen,omitempty"`
	// Fence says how the master would end the node's work were the agent
	// to fall silent; nil from a master older than it, or whose
	// configuration sets fence: false: the agent then fences nothing.
	Fence *Fence `json:"fence,omitempty"`
	// TimeLimits are the hard time limits of the node's attempts, as in
	// SyncReply.
	TimeLimits []TimeLimit `json:"time_limits,omitempty"`
	// Accepts lists the fields of the agent's syncs and reports, newer
	// than the protocol's first, that this master takes (the Accept
	// constants). The master decodes agents' bodies strictly, so an
	// older one refuses a field it does not know: an agent sends such a
	// field only when the reply of its latest registration named it.
	// Empty from a master older than the list, which then takes none.
	Accepts []string `json:"accepts,omitempty"`
}

// The fields a master announces it takes (RegisterReply.Accepts).
const (
	// AcceptReportCheckpoint: Report.Checkpoint.
	AcceptReportCheckpoint = "report.checkpoint"
	// AcceptSyncStarting: Sync.Starting.
	AcceptSyncStarting = "sync.starting"
)

// StoreOutageHeader marks a 503 the master answers while its store is
// unavailable: it is up, loses no node for the outage (every agent gets a
// fresh lease once the store is back), and an agent takes the answer as
// contact for its fence, which must not stop tasks for a database's
// hiccup.
const StoreOutageHeader = "X-Allot-Store-Outage"

// PartialHeader, on a 200 the master answers from memory while its store
// is unavailable, says what the answer leaves out until the store is
// back (ended jobs no longer in memory, a job's earlier attempts).
const PartialHeader = "X-Allot-Partial"

// NodeLeaseHeader, on the 404 that answers a sync of a node the master
// knows and has not lost but whose agent has not registered with this
// master process (it restarted), says in milliseconds how much longer it
// waits for the agent to register before it loses the node: a restarted
// master gives every node one agent timeout from its start. The agent
// counts the answer as contact for its fence as of that lease, so that
// registering again does not race the fence. A node the master lost,
// deleted or never knew gets the 404 without it: the master may run its
// attempts elsewhere, and the fence goes on counting.
const NodeLeaseHeader = "X-Allot-Node-Lease-Ms"

// CredentialHeader, on the 401 that refuses an agent's request, says
// why the node credential it presented is refused where the refusal is
// for good: CredentialRevoked, the credential was revoked (a join token
// took the node's name over for another host, which revokes the node's
// earlier credentials, or an admin revoked it). The agent then knows it
// no longer holds the node: the master has ended, or ends, every attempt
// it ran there, and may run them elsewhere; it stops them and stops
// presenting the credential. A 401 without the header (an unknown or
// expired token, an agent's request without one) says nothing for good:
// a database restored from before the credential was issued does not
// know it either.
const CredentialHeader = "X-Allot-Credential"

// CredentialRevoked is CredentialHeader's value for a revoked node
// credential.
const CredentialRevoked = "revoked"

// SyncHeartbeatHeader, on a sync, asks the master to send the reply's
// headers as soon as it begins to hold the sync and then a heartbeat, a
// byte of JSON whitespace (which a JSON decoder skips), at intervals
// while it holds it; on the reply (200), it says that the master does,
// with the interval in milliseconds. The master writes a heartbeat only
// while it holds the node's sync, during which it does not count the
// node silent (its agent timeout counts from the hold's end), so the
// agent takes each byte it reads as contact for its fence: without it,
// a master that died late in a long poll left the agent the fence's
// wait less the poll's hold (docs/reliability.md, "Fencing"). A
// master older than the header holds the reply as before, and ignores
// the header; an agent older than it does not send it, and gets the
// reply as before. Once the headers are out, an error the master finds
// later (the node deleted during the hold) cannot change the status:
// the body carries it instead (SyncReply.Status).
const SyncHeartbeatHeader = "X-Allot-Sync-Heartbeat"

// Fence is what an agent needs to stop, before the master runs them
// elsewhere, the tasks the master would requeue were the node lost
// (docs/reliability.md, "Fencing"): how long the master waits for the
// agent, and which attempts it would hold through the loss. Every reply
// of a master that fences carries it, as the held attempts change with
// the reports and the timeouts with a reload.
type Fence struct {
	// AgentTimeoutMS is the master's agent_timeout: it loses the node
	// once it has heard nothing from the agent for this long.
	AgentTimeoutMS int64 `json:"agent_timeout_ms"`
	// LostNodeGraceMS is lost_node_grace: the held attempts fail this
	// long after the loss.
	LostNodeGraceMS int64 `json:"lost_node_grace_ms"`
	// GraceS is the checkpoint grace of a preemption in the node's pool,
	// which the agent gives a task it stops, as far as the timeout
	// leaves room for it.
	GraceS int64 `json:"grace_s"`
	// Held are the attempts the master would hold through the node's
	// loss for lost_node_grace (non-preemptible ones that ran); it would
	// requeue or end every other attempt on the node at once.
	Held []agent.TaskID `json:"held,omitempty"`
}

// TimeLimit is when an attempt that runs on the node reaches its job's
// hard time limit, for the agent's backstop (docs/reliability.md, "Time
// limits"): the master kills the attempt at its limit itself, and the
// agent kills it with the pool's kill_grace (TaskSpec.KillGraceS), as
// the master's kill would, only where the master has not stopped it a
// few seconds after it (its store was unavailable, or it was out of
// reach). Every reply of a master that knows the field lists them, for
// the attempts starting or running on the node whose job has a limit, so
// that the deadline of an attempt a move or resize restarted (the
// attempt it continues counts) or whose limit a job update changed
// comes again with the next reply; an attempt left out has none (any
// more). An older master sends none, and an older agent ignores them.
type TimeLimit struct {
	Task agent.TaskID `json:"task"`
	// LimitS is the job's time limit in seconds, for the words of the
	// agent's log and exit report.
	LimitS int64 `json:"limit_s"`
	// Deadline is when the attempt reaches the limit, by the master's
	// clock: the first start of its attempt plus the limit (the start of
	// the attempt a move or resize continued), or its own start where
	// that came later (it is past its limit as it runs again).
	Deadline time.Time `json:"deadline"`
	// LeftMS is how long from the reply until Deadline, negative once it
	// has passed: the agent counts from the reply's arrival by its own
	// clock, so that a clock that differs from the master's moves
	// nothing (the reply's way only makes the agent later, never
	// earlier).
	LeftMS int64 `json:"left_ms"`
}

// NodePlacement is where the master put a node: the registration reply says
// it, and a sync reply again when a reload of the master's configuration
// changed it.
type NodePlacement struct {
	// Pool is the pool the master put the node in: the one its node rule
	// pins (PoolByRule), else the one the agent asked for where the
	// configuration has it, else the default pool (a pinned node's agent
	// may ask for a pool the configuration lacks; the master keeps what
	// it asked for, and reads the rules over it again at each reload).
	// The agent logs it, and warns when it is not the pool
	// it asked for: nothing else tells the admin running the agent.
	// Empty from a master older than the field.
	Pool string `json:"pool,omitempty"`
	// PoolByRule says that the configuration's node rule for the node
	// (by its name) pinned Pool, whatever the agent asked for.
	PoolByRule bool `json:"pool_by_rule,omitempty"`
	// Labels are the node's labels as the master schedules with them,
	// set only when the node rule adds labels: the agent's with the
	// rule's on top, a rule's label winning over the agent's of the same
	// name. Absent, the agent's own labels stand.
	Labels map[string]string `json:"labels,omitempty"`
}

// Report says what happened to one attempt on the agent.
type Report struct {
	Seq  int64        `json:"seq"` // the agent's, increasing from 1 per agent process
	Task agent.TaskID `json:"task"`
	// Event is running (the process started), exited, or metrics (the
	// trial reported validation metrics: Step and Metrics).
	Event string `json:"event"`
	// Outcome, for exited: completed, failed, preempted or killed.
	Outcome string `json:"outcome,omitempty"`
	// ExitCode, for exited, when the process exited (not when signalled).
	ExitCode *int   `json:"exit_code,omitempty"`
	Error    string `json:"error,omitempty"` // why it could not start, or how it ended
	// At, for exited, is when the task exited, as its shim recorded it
	// (agent.Result.ExitedAt), not when the agent noticed or sent it.
	At time.Time `json:"at"`
	// Step and Metrics, for metrics: one line of the trial's metrics file.
	// Metrics travel as reports so that they share the reports' order,
	// acknowledgement and retries, and arrive before the attempt's exit.
	Step    int64              `json:"step,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// StoppedAtLimit, for exited, says that the agent killed the attempt
	// at its time limit (TimeLimit) because the master had not stopped
	// it: the master ends it as its own time-limit kill would, and
	// charges its usage up to At. Only an agent whose master sent time
	// limits since it registered sets it (an older master would refuse
	// the field as unknown).
	StoppedAtLimit bool `json:"stopped_at_limit,omitempty"`
	// Checkpoint, for exited, says what the attempt's checkpoint
	// directory (ALLOT_CHECKPOINT_DIR) held on this node as the attempt
	// ended: CheckpointWritten (anything at all) or CheckpointNone
	// (empty), which the master's words for a requeued task's next
	// attempt follow ("resumes from its checkpoint", "starts over").
	// Absent when the agent cannot tell (an attempt adopted from an
	// agent older than the field, a directory it cannot read, one that
	// never started) and from an agent older than the field; an agent
	// sends it only to a master that accepts it
	// (AcceptReportCheckpoint).
	Checkpoint string `json:"checkpoint,omitempty"`
}

// Report.Checkpoint values.
const (
	CheckpointWritten = "written"
	CheckpointNone    = "none"
)

// Report events.
const (
	EventRunning = "running"
	EventExited  = "exited"
	EventMetrics = "metrics"
)

// Sync is the body of POST /agents/{name}/sync.
type Sync struct {
	Reports []Report `json:"reports"`
	// Running lists the attempts whose processes run now, as
	// Register.Running: one that exited is left out while its exit report
	// waits for its output lines; the master, which expects that report,
	// waits for it.
	Running []agent.TaskID `json:"running"`
	// Exited names the attempts whose processes have exited (left out of
	// Running, as above; an agent older than that lists them there too)
	// but whose exit report waits (for their output to be delivered, say
	// through a store outage): the master asks no kill of them, so that a
	// searcher's stop taken from their late metrics is not carried out on
	// a trial that has ended (trial r R3). An agent before this field
	// sends none, and such a kill then finds the attempt ended.
	Exited []agent.TaskID `json:"exited,omitempty"`
	// Starting names the attempts whose start the agent holds back until
	// the attempts being stopped on their GPUs have exited (a deferred
	// start): not running yet, and not to be ended as not run past the
	// master's start grace; their running report follows the start. Sent
	// only to a master that accepts it (AcceptSyncStarting); an older
	// master may end a start deferred past its grace as not run.
	Starting []agent.TaskID `json:"starting,omitempty"`
	// WaitS asks the master to hold the request this long when it has no
	// command to send; 0 answers at once.
	WaitS int `json:"wait_s"`
	// Leaving says the agent is shutting down and stopping its tasks: the
	// master places nothing more on the node. Every sync from then on
	// carries it.
	Leaving bool `json:"leaving,omitempty"`
	// Final, with Leaving, says this sync carries every report the agent
	// has left and that it runs nothing: the master marks the node left
	// (not lost), and the agent exits. A node that left comes back up
	// when it registers again.
	Final bool `json:"final,omitempty"`
	// PlacementGen acknowledges the node's placement: the highest
	// placement generation the agent has heard since it registered (the
	// registration reply's, or a sync reply's). The master repeats the
	// placement in its replies until a sync acknowledges a generation
	// that has it, so a lost reply does not lose a move. 0, absent, from
	// an agent older than the field (it hears a move once), and from one
	// whose master sent no generation (older than the field, and which
	// would refuse the field as unknown).
	PlacementGen int64 `json:"placement_gen,omitempty"`
}

// SyncReply answers a sync.
type SyncReply struct {
	// Acked is the highest report sequence the master has stored.
	Acked    int64     `json:"acked"`
	Commands []Command `json:"commands"`
	// Placement is the node's placement when it changed since the master
	// last told this agent (by the registration reply or an earlier
	// sync reply), as a reload of the configuration whose node rule for
	// the node pins another pool or sets other labels changes it; nil
	// when it did not, and from a master older than the field. To an
	// agent that acknowledges placements (Sync.PlacementGen), every
	// reply repeats it until a sync acknowledges PlacementGen or later;
	// to one that does not, the master sends it once.
	Placement *NodePlacement `json:"placement,omitempty"`
	// PlacementGen is the placement generation as of this reply, sent
	// only to an agent that acknowledges placements: the placement in
	// force is Placement, or when absent the one the agent acknowledged.
	// The agent keeps the highest it got and sends it back; a reply of a
	// lower generation than the agent's is older news, which it ignores.
	// Generations are opaque numbers that increase within one master
	// process; a new master process has the agent register again, whose
	// reply starts them over.
	PlacementGen int64 `json:"placement_gen,omitempty"`
	// Fence is as in RegisterReply, as of this reply; nil says that the
	// master does not fence (any more: a reload may turn it off).
	Fence *Fence `json:"fence,omitempty"`
	// TimeLimits are the hard time limits of the attempts starting or
	// running on the node, as of this reply (TimeLimit): the agent keeps
	// the latest reply's; none from a master older than the field.
	TimeLimits []TimeLimit `json:"time_limits,omitempty"`
	// Status, when not 0, says that the sync failed after the master had
	// sent the reply's headers (SyncHeartbeatHeader: the 200 went out
	// when the hold began): it is the status the master would have
	// answered with (404: register again), Error says why, and nothing
	// else in the reply counts. Only a sync that asked for heartbeats
	// gets it.
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Command is something the master asks an agent to do.
type Command struct {
	// Type is start, preempt or kill.
	Type string `json:"type"`
	// Start carries the attempt to run, for start.
	Start *agent.TaskSpec `json:"start,omitempty"`
	// Task names the attempt, for preempt and kill.
	Task agent.TaskID `json:"task"`
	// GraceS is, for preempt, the checkpoint grace in seconds; for kill,
	// the pool's kill_grace: SIGTERM to the task's process group, then
	// SIGKILL of what is left of it after GraceS seconds (0: SIGKILL at
	// once, as for attempts the master has ended already).
	GraceS int64 `json:"grace_s,omitempty"`
}

// Command types.
const (
	CommandStart   = "start"
	CommandPreempt = "preempt"
	CommandKill    = "kill"
)

// LogBatch is the body of POST /agents/{name}/logs.
type LogBatch struct {
	Lines []AgentLogLine `json:"lines"`
}

// AgentLogLine is one line as an agent sends it.
type AgentLogLine struct {
	Task   agent.TaskID `json:"task"`
	Seq    int64        `json:"seq"`
	Time   time.Time    `json:"time"`
	Stream string       `json:"stream"`
	Text   string       `json:"text"`
}
