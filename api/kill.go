package api

// KillReply is the answer to POST /api/v1/jobs/{id}/kill: the job as it
// is after the kill, and whether it had already ended, so that a client
// can tell a kill that did something from a repeated one (which changes
// nothing and is not an error). Job's fields are its own, so a client
// that reads the reply as a Job still can.
type KillReply struct {
	Job
	// AlreadyEnded: the job had ended (completed, failed or killed)
	// before this request; its State says how.
	AlreadyEnded bool `json:"already_ended,omitempty"`
}

// KillJobs is the body of POST /api/v1/jobs/kill: the jobs to kill in
// one step, as scancel kills a list. No scheduling pass runs between
// their kills, so none of them starts because another was killed.
type KillJobs struct {
	IDs []int64 `json:"ids"`
}

// KillResult is what POST /api/v1/jobs/kill did to one job of its list,
// in the list's order: Reply when the job was killed (or had already
// ended), else Status and Error, as POST /jobs/{id}/kill would have
// answered for it alone (404: no such job; 403: not the caller's to
// kill; 503: the store refused the change).
type KillResult struct {
	ID     int64      `json:"id"`
	Reply  *KillReply `json:"reply,omitempty"`
	Status int        `json:"status,omitempty"`
	Error  string     `json:"error,omitempty"`
}
