package api

import "time"

// Usage is GET /usage: GPU time used in a window, grouped, with the
// fair-share standing of the accounts of multifactor pools.
type Usage struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// By is the grouping: "project", "user", "pool" or "all" (one row per
	// pool, project and user).
	By            string     `json:"by"`
	Rows          []UsageRow `json:"rows"`
	TotalGPUHours float64    `json:"total_gpu_hours"`
	// Shares is sshare's view, one entry per account, when a pool uses
	// multifactor fair share; empty otherwise.
	Shares []Share `json:"shares,omitempty"`
	// Decay says how the usage behind Shares decays, in words, with when
	// it next does ("usage halves every 168h, applied at each 24h
	// period's end, next in 3h 52m"); with Shares only.
	Decay string `json:"decay,omitempty"`
	// HiddenProjects counts the projects whose usage in the window the
	// caller may not read (no role there), and HiddenGPUHours their
	// GPU-hours together, not in the rows or the total: the note that
	// tells a member the table is not the whole cluster's, and how much
	// went elsewhere, without whose it was.
	HiddenProjects int     `json:"hidden_projects,omitempty"`
	HiddenGPUHours float64 `json:"hidden_gpu_hours,omitempty"`
}

// UsageRow is the usage of one group in the window. The fields the
// grouping does not use are empty.
type UsageRow struct {
	Pool     string  `json:"pool,omitempty"`
	Project  string  `json:"project,omitempty"`
	User     string  `json:"user,omitempty"`
	GPUHours float64 `json:"gpu_hours"`
	Jobs     int     `json:"jobs"`     // jobs with usage in the window
	Attempts int     `json:"attempts"` // attempts with usage in the window
}

// Share is one fair-share account's standing, as Slurm's sshare shows it:
// shares among siblings, normalised share of the cluster, decayed usage of
// the account and its descendants (as a fraction of the cluster), and the
// fair-share factor its jobs get.
type Share struct {
	Account        string  `json:"account"` // "project" or "project/user"
	RawShares      float64 `json:"raw_shares"`
	NormShares     float64 `json:"norm_shares"`
	EffectiveUsage float64 `json:"effective_usage"`
	// FairShare is absent for an account that has no factor of its own:
	// under fair tree, a project (its users are ranked, not it) and a
	// user's leaf with neither jobs nor usage, which takes no rank.
	FairShare *float64 `json:"fair_share,omitempty"`
	// Rank is, under fair tree, a user's place among the Users ranked, 1
	// the best (factor 1); tied users share one, and the user after a tie
	// takes the place it would have without it (1, 1, 3). Absent where
	// FairShare is, and under classic.
	Rank  int `json:"rank,omitempty"`
	Users int `json:"users,omitempty"`
}

// HistoryRecord is one job in GET /history, as Slurm's sacct shows it.
type HistoryRecord struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	User        string     `json:"user"`
	Project     string     `json:"project"`
	Pool        string     `json:"pool"`
	State       string     `json:"state"` // the job's, or held (JobStateHeld) for a queued job held
	Tasks       int        `json:"tasks"`
	Slots       int        `json:"slots"` // per task
	SubmittedAt time.Time  `json:"submitted_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"` // the first attempt's start
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	WaitS       int64      `json:"wait_s"`           // all the time queued: to the first start, and each requeue's wait (to now, or to a kill while queued), less HeldS
	HeldS       int64      `json:"held_s,omitempty"` // the time it was held (allot job hold, requeue --hold, submit --hold) while queued: no wait, as GET /fairness's held_wait_s
	ElapsedS    int64      `json:"elapsed_s"`        // the attempts' runs, merged: each from its start to its exit (ExitedAt, else its end), or to now while it is open
	Attempts    int        `json:"attempts"`
	GPUHours    float64    `json:"gpu_hours"`
	ExitCode    *int       `json:"exit_code,omitempty"` // the last attempt's, when it exited
	Reason      string     `json:"reason,omitempty"`    // why it ended, when it did: the last attempt's reason, or the job's for one killed while it waited
}

// Fairness is GET /fairness: for a window, each project's entitlement
// against what it got and how long its jobs waited.
type Fairness struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// MeasuredSince, when set, is the cluster's start (its earliest
	// record: a node's first registration, the first job, the first usage
	// record), later than Since: the window was shortened to it, since
	// the cluster had no GPUs before.
	MeasuredSince *time.Time `json:"measured_since,omitempty"`
	// CapacityGPUHours is the GPUs of the nodes up now times the window
	// (from MeasuredSince when set).
	CapacityGPUHours float64       `json:"capacity_gpu_hours"`
	Projects         []FairnessRow `json:"projects"`
}

// FairnessRow is one project in Fairness. Shares are fractions of the
// cluster; a parent's figures include its sub-projects'.
type FairnessRow struct {
	Project  string  `json:"project"`
	Parent   string  `json:"parent,omitempty"`
	Entitled float64 `json:"entitled"` // its share of the cluster by the configuration's shares (quota by default)
	Got      float64 `json:"got"`      // GPU-hours used / capacity GPU-hours
	GPUHours float64 `json:"gpu_hours"`
	// Jobs counts the project's jobs active in the window; Waited those
	// that waited in it, with their wait (up to the window's end for those
	// still waiting).
	Jobs      int   `json:"jobs"`
	Waited    int   `json:"waited"`
	MeanWaitS int64 `json:"mean_wait_s"`
	MaxWaitS  int64 `json:"max_wait_s"`
	// Deprived flags a project that got less than 90% of its entitlement
	// while it had work waiting, not counting negligible waits: its jobs'
	// waits times their GPUs must reach 1% of its entitled GPU-hours
	// (entitled × capacity). Note says so in words.
	Deprived bool `json:"deprived"`
	// NoNode counts the project's jobs still waiting in pools with no node
	// up now (NoNodePools): they wait for a node to join the pool, which
	// no share of the cluster could have served, so their waits count in
	// Waited and the waits shown but not toward Deprived. Note says so.
	NoNode      int      `json:"no_node,omitempty"`
	NoNodePools []string `json:"no_node_pools,omitempty"`
	// OwnWaitS and DownWaitS are the seconds of its jobs' waits (summed)
	// that were of its own making (its limit, demand past its quota or
	// fair share, its max_concurrent) and on drained, lost or departed
	// nodes, as far as the master has seen since it started: shown in
	// Waited and the waits, not counted toward Deprived. Note says so.
	OwnWaitS  int64 `json:"own_wait_s,omitempty"`
	DownWaitS int64 `json:"down_wait_s,omitempty"`
	// HeldWaitS is the seconds its jobs were held (allot job hold,
	// requeue --hold) while queued: shown apart, in none of the waits
	// (WAITED, MEAN WAIT, MAX WAIT) nor what flags it.
	HeldWaitS int64  `json:"held_wait_s,omitempty"`
	Note      string `json:"note,omitempty"`
}
