package api

import "time"

// Pool is a pool and its load.
type Pool struct {
	Name       string `json:"name"`
	Policy     string `json:"policy"`
	Preemption bool   `json:"preemption"`
	Backfill   bool   `json:"backfill"`
	Placement  string `json:"placement,omitempty"`
	GraceS     int64  `json:"grace_s"`      // preemption grace period
	KillGraceS int64  `json:"kill_grace_s"` // kill_grace: from a kill's SIGTERM to its SIGKILL
	// Nodes and Slots count the pool's nodes that are up, drained ones
	// too, and their slots.
	Nodes int `json:"nodes"`
	// DrainedNodes is how many of Nodes are drained or leaving: up,
	// running their tasks, taking no new work.
	DrainedNodes int `json:"drained_nodes,omitempty"`
	// LostNodes and LeftNodes count the pool's nodes that are not up,
	// outside Nodes and Slots: lost (no word from its agent past
	// agent_timeout; it may come back any time, its tasks held for
	// lost_node_grace) and left (its agent shut down). A deleted node is
	// no longer the pool's.
	LostNodes int `json:"lost_nodes,omitempty"`
	LeftNodes int `json:"left_nodes,omitempty"`
	Slots     int `json:"slots"`
	Used      int `json:"used"`
	// QueuedJobs counts the pool's jobs in state queued (held ones too),
	// those GET /jobs?state=queued lists; RunningTasks the tasks that
	// hold its GPUs.
	QueuedJobs   int `json:"queued_jobs"`
	RunningTasks int `json:"running_tasks"`
	// WaitingTasks counts the tasks still waiting to start in jobs that
	// run already (an experiment's trials, an array's tasks), which are
	// running jobs, not queued ones.
	WaitingTasks int `json:"waiting_tasks,omitempty"`
	// Reservations are the starts that the last scheduling pass reserved
	// for waiting jobs of the pool, earliest first.
	Reservations []Reservation `json:"reservations,omitempty"`
	// BackfillWindow is what a job may backfill now without delaying
	// any reservation.
	BackfillWindow *BackfillWindow `json:"backfill_window,omitempty"`
	// Elsewhere are the nodes outside the pool where its jobs hold GPUs,
	// with their pools now: nodes a configuration reload moved to another
	// pool while the jobs ran there. Used counts what they hold there
	// too, so it may exceed Slots.
	Elsewhere []PoolNode `json:"elsewhere,omitempty"`
	// Guests are the GPUs of the pool's nodes that are up held by jobs
	// of other pools, by node and pool, in that order: a configuration
	// reload moved the node into the pool while they ran there. Used
	// does not count them (it is the pool's own jobs'), so what the
	// pool's jobs may still get is Slots less Used (what of it is on the
	// pool's nodes) and these.
	Guests []PoolGuest `json:"guests,omitempty"`
	// SchedulerError is, while the master's scheduling passes fail, the
	// last failure: no pool schedules until a pass succeeds, whatever
	// its reservations and reasons say.
	SchedulerError string `json:"scheduler_error,omitempty"`
}

// PoolNode is a node and the pool it is in.
type PoolNode struct {
	Node string `json:"node"`
	Pool string `json:"pool"`
}

// PoolGuest is what jobs of another pool hold on a node of this one
// (api.Pool.Guests): GPUs of Pool's jobs on Node.
type PoolGuest struct {
	Node string `json:"node"`
	Pool string `json:"pool"`
	GPUs int    `json:"gpus"`
}

// Reservation is a start that a scheduling pass reserved for a job.
type Reservation struct {
	Job   int64     `json:"job"`
	Start time.Time `json:"start"`
	Slots int       `json:"slots"` // per task
	// License names the license the job waits for, when its start is
	// reserved at that license's release rather than at free slots.
	License string `json:"license,omitempty"`
}

// BackfillWindow is the room free in a pool until its next reservation:
// Slots free now, for Seconds (until Until). Without a reservation the
// window has no end, and Seconds and Until are absent.
type BackfillWindow struct {
	Slots   int        `json:"slots"`
	Seconds int64      `json:"seconds,omitempty"`
	Until   *time.Time `json:"until,omitempty"`
}

// Project is a project and its use.
type Project struct {
	Name            string  `json:"name"`
	Parent          string  `json:"parent,omitempty"`
	Quota           int     `json:"quota"`
	OverQuotaWeight float64 `json:"over_quota_weight"`
	Limit           int     `json:"limit,omitempty"`
	// Used is what the project (with its sub-projects) holds in every
	// pool, quota pools or not.
	Used         int `json:"used"`
	QueuedJobs   int `json:"queued_jobs"`
	RunningTasks int `json:"running_tasks"`
	// WaitingTasks is as api.Pool's: tasks waiting in running jobs.
	WaitingTasks int `json:"waiting_tasks,omitempty"`
	// UsedInQuotaPools is the part of Used held in pools of policy quota,
	// the only pools where Quota applies.
	UsedInQuotaPools int `json:"used_in_quota_pools"`
	// QuotaPools gives the project's use in each quota pool: each quota
	// pool holds the project to its whole Quota on its own, so with
	// several of them, quota comparisons are per pool.
	QuotaPools []ProjectPoolUse `json:"quota_pools,omitempty"`
	// OverQuota is by how much the project's use exceeds its Quota in its
	// most over-quota pool: 0 when within its quota in every quota pool.
	OverQuota int `json:"over_quota"`
	// QOS lists the QOS levels the project's jobs may name (its qos, else
	// its nearest ancestor's, named by QOSFrom); absent: every level.
	QOS     []string `json:"qos,omitempty"`
	QOSFrom string   `json:"qos_from,omitempty"`
	// MaxPriorityClass is the most important priority class its members'
	// jobs may take (its max_priority_class, else its nearest
	// ancestor's, named by MaxPriorityClassFrom); absent: every class.
	// Its leads and admins are not capped.
	MaxPriorityClass     string `json:"max_priority_class,omitempty"`
	MaxPriorityClassFrom string `json:"max_priority_class_from,omitempty"`
}

// ProjectPoolUse is a project's use of one quota pool. Borrowed is the
// part of Used held by LOW-class work, which borrows idle GPUs and counts
// toward no quota (it is the first reclaimed), so over quota is Used less
// Borrowed against the quota.
type ProjectPoolUse struct {
	Pool     string `json:"pool"`
	Used     int    `json:"used"`
	Borrowed int    `json:"borrowed,omitempty"`
}

// Reload answers POST /config/reload when the configuration was taken:
// Warnings say what it left that an admin should know of, e.g. a pool
// with live jobs but no node ("pool batch has no node now; jobs 2
// (running on gpu-b, now in train) and 3 (queued) are in it"); the master
// logs them too. A master before this answer replied 204 with no body.
type Reload struct {
	Warnings []string `json:"warnings,omitempty"`
	// Changes say what it changed in the pools' scheduling settings, the
	// projects' and the licenses' totals, one line a change ("pool hpc:
	// reservations easy → conservative", "license matlab: total 1 → 0").
	Changes []string `json:"changes,omitempty"`
}
