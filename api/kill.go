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
