package api

// Requeue is the body of POST /api/v1/jobs/{id}/requeue (it may be
// empty): Hold also holds the job, so that its tasks, once checkpointed
// and back in the queue, wait for allot job release (suspend and
// resume; Slurm's scontrol requeuehold).
type Requeue struct {
	Hold bool `json:"hold,omitempty"`
}

// RequeueReply answers POST /api/v1/jobs/{id}/requeue: the job as it
// stands after the request. Requeued is how many of its tasks were asked
// to checkpoint and stop (as a preemption asks, with the pool's grace),
// to wait again and resume from their checkpoints; 0 for a job that had
// none running or starting (a queued job: requeue changes nothing there
// and says so). Held says this request held the job (Requeue.Hold).
type RequeueReply struct {
	Job
	Requeued int  `json:"requeued"`
	Held     bool `json:"held_now,omitempty"`
}

// RequeueJobs is the body of POST /api/v1/jobs/requeue: the jobs to
// requeue in one step, held too where Hold says so.
type RequeueJobs struct {
	IDs  []int64 `json:"ids"`
	Hold bool    `json:"hold,omitempty"`
}

// RequeueResult is what POST /api/v1/jobs/requeue did to one job of its
// list.
type RequeueResult = JobResult[RequeueReply]
