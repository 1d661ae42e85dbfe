package api

import (
	"slices"
	"time"
)

// Explanation is GET /jobs/{id}/explain: why a job waits (or ran as it
// did), in the order of its pool, and what would let it start.
type Explanation struct {
	Job    int64  `json:"job"`
	State  string `json:"state"`
	Pool   string `json:"pool"`
	Policy string `json:"policy"`
	// Order says how the pool ranks its queue, in words.
	Order string `json:"order"`
	// Position is the job's place in its pool's queue (from 1) and
	// Queued the jobs waiting there; Ahead lists the first jobs ahead.
	Position int      `json:"position,omitempty"`
	Queued   int      `json:"queued,omitempty"`
	Ahead    []JobRef `json:"ahead,omitempty"`
	// Factors is the multifactor priority's breakdown, in multifactor
	// pools.
	Factors *Factors `json:"factors,omitempty"`
	// FairShareNote says, with Factors, where its user ranks under fair
	// tree and how usage decays, in words a member may read (members
	// cannot read the configuration): "rank 3 of 3 users; usage halves
	// every 1h, applied at each 24h period's end, next in 3h 52m".
	FairShareNote string `json:"fair_share_note,omitempty"`
	// Pending is the last pass's reason.
	Pending *Pending `json:"pending,omitempty"`
	// WouldStart is the counterfactual: the least that would let it
	// start now.
	WouldStart *Counterfactual `json:"would_start,omitempty"`
	// Preemptions lists how its preempted attempts were taken: by which
	// job, under which rule, one line each ("task 0 attempt 1 at
	// RFC3339: why"). Preempted says the same with its parts apart.
	// Neither lists an elastic task's resizes, which Resized lists.
	Preemptions []string     `json:"preemptions,omitempty"`
	Preempted   []Preemption `json:"preempted,omitempty"`
	// Lost lists its attempts lost with their nodes (a node's agent
	// went silent past agent_timeout, or left): its task and attempt,
	// when the master ended it, and the attempt's reason ("node r2 lost:
	// no contact for 31s"), which no preemption list has.
	Lost []Preemption `json:"lost,omitempty"`
	// Fenced lists its attempts that their agents' fence stopped because
	// the master was unreachable (a master crash, restart or freeze
	// longer than the fence's wait, or a network cut): the agent asked
	// for the checkpoint and stopped the attempt, and reported it
	// preempted once it heard the master again; the task was requeued to
	// resume from its checkpoint. No pass asked for it, so neither
	// preemption list has it. At is when the master heard of it (back),
	// ExitedAt when the attempt stopped; Why is the agent's account
	// ("stopped by the agent's fence: no reply from the master for
	// 21s; ..."), then what became of the task. A master older than the
	// list puts them in the preemption lists.
	Fenced []Preemption `json:"fenced,omitempty"`
	// AgentStopped lists its attempts that their node's agent stopped as
	// it shut down cleanly (allot agent --on-exit kill, allot dev
	// stopped): a one-node task's attempt, or a gang's whose other parts
	// then checkpointed, ended preempted (the events' cause
	// agent_stopped) and the task waited again by its exit actions. No
	// pass asked for it, so neither preemption list has it. Why is the
	// end reason without its "stopped for a checkpoint: " ("node n1's
	// agent stopped; ended by SIGTERM"). A master older than the list
	// puts them in the preemption lists.
	AgentStopped []Preemption `json:"agent_stopped,omitempty"`
	// Resized lists the attempts of its elastic tasks that ended resized
	// in place (shrunk for another job, or grown): each checkpointed and
	// ran on at once with another size, which is no preemption.
	Resized []Resize `json:"resized,omitempty"`
	// Resizing, while a task of the running job is being resized (its
	// checkpoint not yet landed), says which, from and to how many slots,
	// for which job and since when (Job.Resizing).
	Resizing *Resizing `json:"resizing,omitempty"`
	// Preempting, while a task of the running job is being preempted
	// (its checkpoint not yet landed), says which, why, since when and
	// by when it is killed if it has not stopped (Job.Preempting).
	Preempting *Preempting `json:"preempting,omitempty"`
	// SchedulerError is, while the master's scheduling passes fail, the
	// last failure, and SchedulerFailingSince when they began to fail:
	// nothing starts in any pool until a pass succeeds, so the rest of
	// the explanation is the last successful pass's (GET /pools says the
	// same).
	SchedulerError        string     `json:"scheduler_error,omitempty"`
	SchedulerFailingSince *time.Time `json:"scheduler_failing_since,omitempty"`
	// StoreUnavailableSince is, while the master's store is down, when it
	// went down: no scheduling pass, time limit or agent timeout runs
	// until it is back, so the rest of the explanation is the last
	// pass's (the summary's first sentence says so).
	StoreUnavailableSince *time.Time `json:"store_unavailable_since,omitempty"`
	// NodeLost, while a task of the job is held on a node that is lost
	// (or left) within lost_node_grace, says which node since when and
	// what becomes of the task at the end of the grace unless the node
	// returns; the job's reason says the same.
	NodeLost string `json:"node_lost,omitempty"`
	// Elastic, for a running elastic job whose tasks hold fewer slots
	// than it asks for, says what they hold and what keeps them from
	// growing.
	Elastic *ElasticHold `json:"elastic,omitempty"`
	// Summary is the explanation in a few sentences.
	Summary string `json:"summary"`
	// AsOf is the master's time, to the second, that the countdowns in
	// its messages ("reserved to start in 9m 57s") count from; a client
	// counting to EstimatedStart from it says the same.
	AsOf time.Time `json:"as_of"`
}

// ElasticHold is a running elastic job held below its size
// (Explanation.Elastic): the slots its running tasks hold, each, and the
// slots a task asks for; the jobs of its pool waiting for slots, which
// keep it from growing (growth takes only spare slots: no job of the pool
// may wait for slots); and why it does not grow, in words.
type ElasticHold struct {
	Held    []int    `json:"held"`
	Slots   int      `json:"slots"`
	Waiting []JobRef `json:"waiting,omitempty"`
	Why     string   `json:"why"`
}

// JobRef names another job in an explanation.
type JobRef struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	User    string `json:"user,omitempty"`
	Project string `json:"project,omitempty"`
	// Slots: per task for a job ahead (and in StartFirst); in MustEnd,
	// all a running job holds on the counterfactual's nodes, or in the
	// pool where StartFirst is given or no node is named.
	Slots int `json:"slots"`
	// EndsAt is when a running job's time limit runs out, when it has one
	// (in MustEnd, the last of its tasks there that must end).
	EndsAt *time.Time `json:"ends_at,omitempty"`
	// Preempt, in MustEnd: "" the job must end (the pool's policy would
	// not preempt it for this one), PreemptPossible it could be preempted
	// instead, PreemptUnderWay the master already asked it to stop.
	Preempt string `json:"preempt,omitempty"`
	// CheckpointBy, in MustEnd, for a job being preempted (Preempt
	// under_way, a resize's shrink included), is when its tasks there
	// have their GPUs free at the latest: the checkpoint request plus the
	// pool's grace, when the master kills what has not stopped (the last
	// of its tasks there). Its time limit (EndsAt) does not matter then.
	CheckpointBy *time.Time `json:"checkpoint_by,omitempty"`
	// Resize, in MustEnd, marks a job whose task the master is resizing
	// rather than preempting (Preempt is under_way): a fair-share shrink
	// for a job below its share, or a quota pool's reclaim. The task checkpoints and restarts at
	// once with To slots of its From; what it gives back is what the
	// job waits for.
	Resize *SlotChange `json:"resize,omitempty"`
	// Private: the caller may not read the job; Name and User are empty.
	Private bool `json:"private,omitempty"`
	// RunsOn, in MustEnd of a counterfactual that names its nodes, are
	// the nodes of a job that runs on none of them: it must end for the
	// jobs the pool serves first (they wait for its room), not to free
	// those nodes. Absent for a job on those nodes.
	RunsOn []string `json:"runs_on,omitempty"`
}

// RunsOnOf is the nodes the jobs refs run on (RunsOn), each once,
// sorted: where the jobs that must end for those the pool serves first
// are.
func RunsOnOf(refs []JobRef) []string {
	var on []string
	for _, r := range refs {
		for _, n := range r.RunsOn {
			if !slices.Contains(on, n) {
				on = append(on, n)
			}
		}
	}
	slices.Sort(on)
	return on
}

// SlotChange is a task's resize: the slots it held and those it
// restarts with.
type SlotChange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// The values of JobRef.Preempt.
const (
	PreemptPossible = "possible"
	PreemptUnderWay = "under_way"
)

// Factors is a job's multifactor priority, factor by factor (0..1 each
// before its weight), as Slurm's sprio shows it.
type Factors struct {
	Age       float64 `json:"age"`
	FairShare float64 `json:"fair_share"`
	JobSize   float64 `json:"job_size"`
	QOS       float64 `json:"qos"`
	Pool      float64 `json:"pool"`
	Nice      int     `json:"nice"`
	Priority  float64 `json:"priority"`
}

// Preemption is one preempted attempt of a job: its task and attempt
// number, when the attempt ended, and why it was preempted (the rule and
// the job it made room for, then how the attempt ended).
type Preemption struct {
	Task    int       `json:"task"`
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Why     string    `json:"why"`
	// ExitedAt and Stopped, for an attempt lost with its node whose agent
	// reported, once back, that its processes had ended before the loss,
	// are when and how (Attempt.Stopped: "fenced by its task shim,
	// checkpoint requested"); absent for any other.
	ExitedAt *time.Time `json:"exited_at,omitempty"`
	Stopped  string     `json:"stopped,omitempty"`
	// MasterBack, for an attempt its agent's fence stopped while the
	// master was down, is when the master started again (the audit's
	// "master start" entry after the stop); At is then when the exit
	// report arrived. Absent where the master did not restart between
	// the stop and the report (an outage of the network or the store).
	MasterBack *time.Time `json:"master_back,omitempty"`
}

// Resize is one attempt of an elastic task that ended resized in place:
// its task and attempt number, when it ended, the slots it held (From)
// and those the next attempt ran on (To), the job it shrank for (ForJob,
// 0 for growth or one resized before the master kept it), and the
// resize in words: "shrunk from 4 to 2 slots for job 2 (quota reclaim:
// ...)", "grown from 2 to 4 slots".
type Resize struct {
	Task    int       `json:"task"`
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	From    int       `json:"from"`
	To      int       `json:"to"`
	ForJob  int64     `json:"for_job,omitempty"`
	Why     string    `json:"why"`
}

// Counterfactual is the smallest change that would let a job start now.
type Counterfactual struct {
	// Never names a constraint no node of the pool can meet (it can only
	// start after the cluster or its configuration changes).
	Never string `json:"never,omitempty"`
	// Node (or Nodes, for a gang) is where it could start soonest, and
	// MustEnd the running jobs there that would have to end or be
	// preempted first; empty when it fits now.
	Nodes   []string `json:"nodes,omitempty"`
	MustEnd []JobRef `json:"must_end,omitempty"`
	// Quota says which quota or limit binds, and by how much.
	Quota string `json:"quota,omitempty"`
	// Limit names the job's own limit that holds it (max_concurrent):
	// no other job has to end, one of its own tasks does.
	Limit string `json:"limit,omitempty"`
	// License, when a license it needs is short (licenses count across
	// every pool), is that license and the running jobs whose ends would
	// free enough of it; free slots would not start it.
	License *LicenseWait `json:"license,omitempty"`
	// StartFirst names the jobs of its pool that the pool's order would
	// serve first, taking some of what MustEnd's jobs free (Slots per
	// task, as in Ahead): the master plays its answer out with the
	// scheduling core, so that MustEnd is what lets it start after
	// them, not only what frees room. With MustEnd empty, even were all
	// of the pool's running jobs (its project's, where a quota or limit
	// binds) to end, these would be served first and it would still
	// wait. In quota and fair-share pools the order changes as projects
	// and users pass their quota or share: it may name jobs behind it in
	// Ahead's order.
	StartFirst []JobRef `json:"start_first,omitempty"`
	// NotBefore, when each job in MustEnd that must end has a time limit,
	// is the last of their ends: the soonest it could start on Nodes (the
	// others preempted then, and the jobs of StartFirst started), for
	// when the forecast gives none.
	NotBefore *time.Time `json:"not_before,omitempty"`
	// Message says it in words.
	Message string `json:"message"`
}

// LicenseWait is the license a job waits for (Counterfactual.License).
type LicenseWait struct {
	Name string `json:"name"`
	// PerTask is how many one task needs; Free and Total how many are
	// free and exist.
	PerTask int `json:"per_task"`
	Free    int `json:"free"`
	Total   int `json:"total"`
	// Holders are the fewest running jobs whose ends free enough, the
	// largest holders first.
	Holders []LicenseHolder `json:"holders"`
}

// LicenseHolder is a running job that holds some of a license: the job
// (Slots: all it holds), and Holding, how many of the license.
type LicenseHolder struct {
	JobRef
	Holding int `json:"holding"`
}
