package api

import "time"

// HoldReply answers POST /api/v1/jobs/{id}/hold and /release: the job
// as it stands after the request. Changed is false when the request
// changed nothing: the job was held already (a hold; its Held says by
// whom and since when), or was not held (a release). Both are
// idempotent, as Slurm's scontrol hold and release are.
type HoldReply struct {
	Job
	Changed bool `json:"changed"`
}

// HoldJobs is the body of POST /api/v1/jobs/hold and /jobs/release: the
// jobs to hold or release in one step.
type HoldJobs struct {
	IDs []int64 `json:"ids"`
}

// HoldResult is what POST /api/v1/jobs/hold or /release did to one job
// of its list (404: no such job; 403: not the caller's to hold; 409: it
// has ended, or, for a hold, it has tasks running).
type HoldResult = JobResult[HoldReply]

// Held says who held a queued job and when (allot job hold, allot
// submit --hold): no scheduling pass considers it until it is released.
type Held struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}
