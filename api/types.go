package api

import (
	"encoding/json"
	"time"
)

// Version is the API's path prefix.
const Version = "/api/v1"

// MaxBodyBytes bounds every request body. A job file with 10,000 trials
// of hyperparameters fits well below it.
const MaxBodyBytes = 8 << 20

// Error is the body of every 4xx and 5xx response.
type Error struct {
	Error string `json:"error"`
	// Field names the request field at fault, when one is.
	Field string `json:"field,omitempty"`
	// Errors lists every error found, the first being Error and Field,
	// where a request (a job file the master checks against its
	// configuration) has more than one; absent for one.
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError is one of an Error's errors: its message, and the field at
// fault when one is.
type FieldError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// HiddenValue stands for each value of a job's environment that the
// caller may not see (Job.EnvironmentHidden); HiddenNote says why, for
// clients to show.
const (
	HiddenValue = "<hidden>"
	HiddenNote  = "hidden: only the job's owner and admins see values"
)

// Job is a job as the API shows it: in lists, and (with Tasks) on its own.
type Job struct {
	ID            int64             `json:"id"`
	Name          string            `json:"name"`
	Kind          string            `json:"kind"`
	State         string            `json:"state"` // queued, running, completed, failed, killed
	Reason        string            `json:"reason,omitempty"`
	Project       string            `json:"project"`
	User          string            `json:"user,omitempty"`
	Pool          string            `json:"pool"`
	Slots         int               `json:"slots"` // per task
	Tasks         int               `json:"tasks"` // how many tasks the job has
	Running       int               `json:"running"`
	Priority      int               `json:"priority"`
	PriorityClass string            `json:"priority_class,omitempty"`
	Weight        float64           `json:"weight"`
	Preemptible   bool              `json:"preemptible"`
	TimeLimitS    int64             `json:"time_limit_s,omitempty"`
	Entrypoint    string            `json:"entrypoint"`
	Environment   map[string]string `json:"environment,omitempty"`
	SubmittedAt   time.Time         `json:"submitted_at"`
	EndedAt       *time.Time        `json:"ended_at,omitempty"`
	// StartedAt, while the job holds GPUs, is when it started: the
	// earliest start of its open attempts (a moved or resized task
	// counts from its first placement), as squeue's START_TIME of a
	// running job; absent while no task holds any.
	StartedAt *time.Time `json:"started_at,omitempty"`
	// Nodes, while the job holds GPUs, are the nodes its open attempts
	// have parts on, in name order (squeue's NODELIST); absent while
	// no task holds any. CompactNodes writes them as "n[1-3,5]".
	Nodes []string `json:"nodes,omitempty"`
	// EnvironmentHidden says Environment's values were withheld: they
	// are for the job's owner and admins alone (they may hold secrets,
	// such as API tokens), and anyone else who may read the job gets the
	// names, each value HiddenValue.
	EnvironmentHidden bool `json:"environment_hidden,omitempty"`
	// Ending says every task of the job not ended is being killed,
	// Running of them holding their GPUs until their agents report the
	// end: the job is killed in the store (EndedAt the kill's time until
	// its last task ends), or running and ends once they stop (a time
	// limit, a gang's failed part). Clients show it as JobStateKilling.
	Ending bool `json:"ending,omitempty"`
	// KillRequestedAt is when the kill began, while Ending; for a killed
	// job whose last task ended after the kill (EndedAt), the kill's
	// time (GET /jobs/{id} alone). Nil otherwise.
	KillRequestedAt *time.Time `json:"kill_requested_at,omitempty"`
	// Resizing, while the master resizes a task of the running elastic
	// job in place (the task checkpoints on the slots it holds, then runs
	// on at once with its new ones), says which task, from and to how many
	// slots, and why. Clients show the job as JobStateResizing; it stays
	// running in the store, and the task preempting. Nil otherwise.
	Resizing *Resizing `json:"resizing,omitempty"`
	// Moving, while the master moves a task of the running job to
	// another placement (the task checkpoints, then restarts at once
	// there), says which task, from and to which nodes, for which job
	// and since when. Clients show the job as JobStateMoving (Resizing
	// first where both are set); it stays running in the store, and the
	// task preempting. Nil otherwise.
	Moving *Moving `json:"moving,omitempty"`
	// Preempting, while a task of the running job is being preempted
	// (asked to checkpoint and stop, and neither moved nor resized: it
	// waits again once it stops), says which task, why, since when and
	// by when its GPUs are free (the grace's end, when the master kills
	// what has not stopped). Clients show the job as JobStatePreempting
	// (Resizing and Moving first where set); it stays running in the
	// store. Nil otherwise.
	Preempting *Preempting `json:"preempting,omitempty"`
	// Position is the job's place in its pool's scheduling order, from 1,
	// for queued jobs with waiting tasks; 0 otherwise.
	Position int `json:"position,omitempty"`
	// Pending explains why a queued job is not running, from the last
	// scheduling pass; for a held job (Held), reason "held".
	Pending *Pending `json:"pending,omitempty"`
	// Held, for a held job, says who held it and when; nil otherwise.
	Held *Held `json:"held,omitempty"`
	// MultifactorPriority is, for a running job of a multifactor pool,
	// the multi-factor priority it had in the last pass that found it
	// waiting: the one it started with, which it keeps, as Slurm keeps a
	// running job's (squeue's %Q), or, for one that started in the first
	// pass to see it, its priority in that pass. A waiting job's is
	// pending.priority. The start stores it with its attempt, so a
	// restarted master shows the same. Absent elsewhere, and after a
	// restart for a job started by an older master, which did not
	// store it.
	MultifactorPriority float64 `json:"multifactor_priority,omitempty"`
	// OnPreempt and MaxRetries are the job's exit actions in force (its
	// file's, else its pool's): GET /jobs/{id} gives them when they are
	// not the default (reschedule, no cap); MaxRetries is nil for no cap.
	OnPreempt  string `json:"on_preempt,omitempty"`
	MaxRetries *int   `json:"max_retries,omitempty"`
	// Holding is how many slots (GPUs) the job's tasks hold now, all
	// tasks together: an elastic task holds fewer than Slots while it
	// runs shrunk. Absent when none.
	Holding int `json:"holding,omitempty"`
	// MaxSlots caps the slots the job holds at once, all tasks together
	// (the job file's resources.max_slots); 0: no cap.
	MaxSlots int `json:"max_slots,omitempty"`
	// The rest of the job file's scheduling hints, named as there
	// (resources.*), so that a user reads back what was submitted. GET
	// /jobs/{id} gives them when set; lists leave them out.
	MinSlots int            `json:"min_slots,omitempty"` // elastic: a task may run on this few
	GPU      string         `json:"gpu,omitempty"`       // GPU type; "": any
	Topology string         `json:"topology,omitempty"`  // "prefer" or "required"; "": prefer
	Licenses map[string]int `json:"licenses,omitempty"`  // per task, by license name
	QOS      string         `json:"qos,omitempty"`       // "": the master's default
	Nice     int            `json:"nice,omitempty"`
	// CheckpointEvery is how often (seconds) the job says it saves a
	// checkpoint.
	CheckpointEvery int64 `json:"checkpoint_every,omitempty"`
	// TaskList is filled by GET /jobs/{id} only.
	TaskList []Task `json:"task_list,omitempty"`
}

// Pending is the scheduler's explanation for a waiting job.
type Pending struct {
	Reason  string `json:"reason"`  // a code, e.g. no_free_slots, over_quota
	Message string `json:"message"` // for people
	// BlockedBy names the job that holds it back, when one does.
	BlockedBy int64 `json:"blocked_by,omitempty"`
	// BlockedByPrivate says the caller may not read the job BlockedBy
	// names (another project's): a client names it by number, with no
	// link to a page that would refuse it.
	BlockedByPrivate bool `json:"blocked_by_private,omitempty"`
	// EstimatedStart is when it should start: the reservation's start,
	// when the policy holds one, else the master's forecast (running tasks
	// end at their time limits, tasks being preempted at their grace's
	// end); absent when a task without a time limit stands in the way.
	// Never before AsOf: a start due already (the pass that starts it
	// has not run yet) is AsOf.
	EstimatedStart *time.Time `json:"estimated_start,omitempty"`
	// EstimateBasis says where EstimatedStart comes from: "reservation",
	// "forecast", or "checkpoint" for a job waiting for the GPUs of
	// tasks being preempted, moved or resized for it (reason
	// checkpointing): it starts by the end of their checkpoint grace, when
	// the master kills what has not stopped, and sooner if they stop
	// sooner.
	EstimateBasis string `json:"estimate_basis,omitempty"`
	// EstimatedStartEarliest is the early end of a forecast's range: the
	// start if jobs run for the share of their time limits that recent
	// attempts typically used (EstimatedStart assumes the whole limits).
	EstimatedStartEarliest *time.Time `json:"estimated_start_earliest,omitempty"`
	// AsOf is the master's time, to the second, that Message's countdown
	// ("reserved to start in 9m 57s") counts from: the time of the
	// request, one for every job of an answer, so that a client counting
	// to EstimatedStart from it says what the message says.
	AsOf *time.Time `json:"as_of,omitempty"`
	// Priority is, in a multifactor pool, the job's multi-factor priority
	// in the last pass (Slurm's number, higher runs first; squeue's %Q),
	// never the 1-99 priority; absent elsewhere.
	Priority float64 `json:"priority,omitempty"`
}

// Task is one task of a job with its attempts.
type Task struct {
	Index           int             `json:"index"`
	State           string          `json:"state"`
	Reason          string          `json:"reason,omitempty"`
	Restarts        int             `json:"restarts"`
	CheckpointDir   string          `json:"checkpoint_dir,omitempty"`
	Hyperparameters json.RawMessage `json:"hyperparameters,omitempty"`
	Attempts        []Attempt       `json:"attempts"`
	// Resize, for a task preempting to be resized in place (it restarts
	// at once on a placement of another size, reserved for it), is the
	// slots of its attempt and of that placement; clients show the task
	// as JobStateResizing. Nil otherwise (a move keeps its size).
	Resize *SlotChange `json:"resize,omitempty"`
	// Move, for a task preempting to be moved (it restarts at once on a
	// placement reserved for it, with as many slots), is the nodes of its
	// attempt and of that placement; clients show the task as
	// JobStateMoving. Nil otherwise.
	Move *NodeChange `json:"move,omitempty"`
}

// Attempt is one run of a task.
type Attempt struct {
	Number    int         `json:"number"`
	Placement []Placement `json:"placement"`
	StartedAt time.Time   `json:"started_at"`
	RunningAt *time.Time  `json:"running_at,omitempty"`
	EndedAt   *time.Time  `json:"ended_at,omitempty"`
	// ExitedAt is when the attempt's processes exited, by its agents'
	// reports, which its usage is charged until: before EndedAt (when
	// the master heard of it and freed the GPUs) for an exit its agent
	// could only report once back from an outage.
	ExitedAt *time.Time `json:"exited_at,omitempty"`
	// EndState: completed, failed, killed, preempted or lost; "" while open.
	EndState string `json:"end_state,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// ReportedEnd, for an attempt ended lost, is how its agent, back,
	// reported its processes had ended before the master gave up on
	// it: completed, failed, preempted or killed, at ExitedAt (which its
	// usage is charged until); Stopped says it in words ("fenced by its
	// task shim, checkpoint requested"). Both "" for any other attempt
	// and for a lost one no agent reported on.
	ReportedEnd string `json:"reported_end,omitempty"`
	Stopped     string `json:"stopped,omitempty"`
	// PreemptedBy, for an attempt the scheduler preempted, moved or
	// shrank for another job (ended preempted, or preempting still), is
	// the job it made room for and the rule that let that job take its
	// slots; nil for any other attempt, a resize that grew the task, and
	// one preempted before the master kept it.
	PreemptedBy *PreemptedBy `json:"preempted_by,omitempty"`
	// Fenced, for an attempt ended preempted, says that no pass asked for
	// it: its agent's fence (or its task shim's) stopped it because the
	// master was unreachable, and its Reason says so (allot job show's
	// END fenced). A master older than it leaves it false.
	Fenced bool `json:"fenced,omitempty"`
	// AgentStopped, for an attempt ended preempted, says that no pass
	// asked for it either: its node's agent stopped it for a checkpoint
	// as the agent shut down cleanly (allot agent --on-exit kill, allot
	// dev stopped), and its Reason says so (allot job show's END
	// agent-stopped). A master older than it leaves it false.
	AgentStopped bool `json:"agent_stopped,omitempty"`
}

// PreemptedBy names who preempted an attempt, and why. Name, User and
// Project are empty, and Private true, for a job the caller may not read
// (as JobRef's); the job's number and the rule are every reader's.
type PreemptedBy struct {
	Job int64 `json:"job"`
	// Reason is the rule, a word: priority (a higher priority), quota_reclaim
	// (a project reclaiming GPUs within its quota from one over it),
	// same_project (a job of the attempt's own project ranked first in a
	// quota pool), fair_share, multifactor (a higher multifactor
	// priority), qos (a QOS that may preempt the attempt's), backfilled
	// (the attempt ran on slots backfilled before that job), moved (a
	// move, to make room for the job elsewhere) or resized (an elastic
	// task shrunk to give slots back to the job: a fair-share pool's, or
	// a quota pool's reclaim);
	// "" where no rule is named.
	Reason string `json:"reason,omitempty"`
	// Why says the same in words, as allot explain does.
	Why     string `json:"why,omitempty"`
	Name    string `json:"name,omitempty"`
	User    string `json:"user,omitempty"`
	Project string `json:"project,omitempty"`
	Private bool   `json:"private,omitempty"`
	// StartedElsewhere: the job never used the attempt's GPUs; every
	// task of it started since on others, which freed while the attempt
	// was being preempted (a preemption is not withdrawn once its
	// signal is sent), or it was killed before it started. Why says so.
	StartedElsewhere bool `json:"started_elsewhere,omitempty"`
}

// Placement is the part of an attempt on one node.
type Placement struct {
	Node string `json:"node"`
	GPUs []int  `json:"gpus"`
}

// JobUpdate is the body of PATCH /jobs/{id}. Nil fields are kept.
//
// TimeLimit is the job file's time_limit: a duration string ("2h",
// "1d12h", "1-00:00:00") or whole seconds; TimeLimitS is the same in
// seconds, as Job shows it. Give one of them; 0 removes the limit. A
// job's owner may lower its time limit, also while it runs; raising or
// removing it needs the admin role, or the lead role in the job's
// project. QOS must be one the job's project allows. Nice is 0..
// 1000000000, as in the job file; lowering it (raising the job's
// priority) needs the admin or lead role, as a negative nice does in
// Slurm.
type JobUpdate struct {
	Priority      *int            `json:"priority,omitempty"`
	PriorityClass *string         `json:"priority_class,omitempty"`
	Weight        *float64        `json:"weight,omitempty"`
	TimeLimit     json.RawMessage `json:"time_limit,omitempty"`
	TimeLimitS    *int64          `json:"time_limit_s,omitempty"`
	QOS           *string         `json:"qos,omitempty"`
	Nice          *int            `json:"nice,omitempty"`
}

// LogLine is one line of a task's output.
type LogLine struct {
	Task    int       `json:"task"`
	Attempt int       `json:"attempt"`
	Seq     int64     `json:"seq"`
	Time    time.Time `json:"time"`
	Stream  string    `json:"stream"` // stdout or stderr
	Text    string    `json:"text"`
	// Rank and Node say which part of a task across several nodes (a
	// gang) printed the line: its rank, from 0, and its node. Absent for
	// a task on one node.
	Rank *int   `json:"rank,omitempty"`
	Node string `json:"node,omitempty"`
}

// Logs answers GET /jobs/{id}/logs. Next is the cursor for the following
// request (?after=Next); Done says the job is terminal and every line has
// been returned, so a follower may stop.
type Logs struct {
	Lines []LogLine `json:"lines"`
	Next  string    `json:"next"`
	Done  bool      `json:"done"`
}

// Node is a registered agent.
type Node struct {
	Name         string            `json:"name"`
	Pool         string            `json:"pool"`
	State        string            `json:"state"` // up, lost or left (its agent said goodbye)
	GPUType      string            `json:"gpu_type,omitempty"`
	Slots        int               `json:"slots"`
	Used         int               `json:"used"`
	Labels       map[string]string `json:"labels,omitempty"`
	GPUs         []GPU             `json:"gpus"`
	RegisteredAt time.Time         `json:"registered_at"`
	HeartbeatAt  time.Time         `json:"heartbeat_at"`
	// Version is the agent's build as it registered; empty until the
	// agent registers with this master process.
	Version string `json:"version,omitempty"`
	// Leaving: the node is up and its agent is shutting down cleanly
	// (api.Sync Leaving): nothing new goes there, and its final sync will
	// mark it left. State stays up until then, as for a drain.
	Leaving bool `json:"leaving,omitempty"`
	// PoolByRule says that the configuration's node rule for the node
	// (nodes: in the master's configuration, by name) pins Pool,
	// whatever pool its agent asked for.
	PoolByRule bool `json:"pool_by_rule,omitempty"`
	// AgentPool is the pool the node's agent asked for (its --pool), when
	// it is not Pool: a node rule pins the node elsewhere (PoolByRule),
	// or the configuration has no such pool (PoolNote). The node goes
	// back to it when its rule is removed.
	AgentPool string `json:"agent_pool,omitempty"`
	// PoolNote says why the node is in the default pool rather than its
	// agent's, AgentPool: no rule pins it (one that did was removed) and
	// the configuration has no such pool. Absent otherwise.
	PoolNote string `json:"pool_note,omitempty"`
	// RuleLabels are the labels the node rule puts over the agent's, a
	// rule's label winning over the agent's of the same name; Labels
	// holds them already. Absent when the rule adds none.
	RuleLabels map[string]string `json:"rule_labels,omitempty"`
	// AgentLabels are the labels the node's agent registered with (its
	// --label), given along with RuleLabels so that a reader sees what
	// the rule overrode; absent when the rule adds no label (Labels are
	// the agent's then) or the agent gave none.
	AgentLabels map[string]string `json:"agent_labels,omitempty"`
	// Drain is "draining" while an admin's drain waits for the node's
	// tasks to end, "drained" once none is left, and empty when the node
	// is schedulable. State stays up or lost either way.
	Drain       string     `json:"drain,omitempty"`
	DrainReason string     `json:"drain_reason,omitempty"`
	DrainedBy   string     `json:"drained_by,omitempty"`
	DrainedAt   *time.Time `json:"drained_at,omitempty"` // when the drain began
	UsedGPUs    []int      `json:"used_gpus,omitempty"`  // indices of the GPUs tasks hold, whoever's
	// LostAt is when the master lost the node (its agent silent past
	// agent_timeout) or its agent left; absent while the node is up.
	LostAt *time.Time `json:"lost_at,omitempty"`
	// HeldUntil, for a lost node whose tasks the master holds through the
	// loss (Used > 0: tasks that must not run twice), is when
	// lost_node_grace ends: they end as lost then unless the agent is back.
	HeldUntil *time.Time `json:"held_until,omitempty"`
}

// The values of Node.Drain.
const (
	NodeDraining = "draining"
	NodeDrained  = "drained"
)

// NodeDrainRequest is the body of POST /nodes/{name}/drain.
type NodeDrainRequest struct {
	Reason string `json:"reason"`
}

// DeletedNode answers DELETE /nodes/{name} (200; ?revoke=true revokes
// the node's credentials with it). An agent that still runs registers
// again at its next sync, as a new node, unless its credential is
// revoked: AgentSeenS and the IDs say what keeps it out, and Note says
// so in words.
type DeletedNode struct {
	Name string `json:"name"`
	// AgentSeenS is how long ago (seconds) the node's agent was last
	// heard, when within the agent timeout: it is alive. Absent when it
	// was not heard that recently.
	AgentSeenS *float64 `json:"agent_seen_s,omitempty"`
	// Credentials are the node's credentials left live (token IDs); an
	// agent that holds one registers again with it.
	Credentials []int64 `json:"credentials,omitempty"`
	// Revoked are the node's credentials revoked with the deletion.
	Revoked []int64 `json:"revoked,omitempty"`
	// JoinTokens are the live join tokens that issued the node's
	// credentials: an agent that still holds one can join again with it,
	// as a new node.
	JoinTokens []int64 `json:"join_tokens,omitempty"`
	// Note says what becomes of the node's agent, and the commands that
	// keep it out; empty when there is nothing to say.
	Note string `json:"note,omitempty"`
}

// GPU is one device of a node.
type GPU struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Name      string `json:"name,omitempty"`
	Type      string `json:"type"`
	MemoryMiB int64  `json:"memory_mib"`
}

// JobPage is one page of GET /jobs?limit=N&cursor=C: jobs newest first,
// and Next, the cursor of the following page, empty after the last.
type JobPage struct {
	Jobs []Job  `json:"jobs"`
	Next string `json:"next,omitempty"`
}

// HistoryPage is one page of GET /history?limit=N&cursor=C: records
// oldest first, and Next, the cursor of the following page, empty after
// the last.
type HistoryPage struct {
	Jobs []HistoryRecord `json:"jobs"`
	Next string          `json:"next,omitempty"`
}
