package api

// JobResult is what a request on a list of jobs (POST /api/v1/jobs/hold,
// /release, /requeue) did to one job of it, in the list's order: Reply
// when it was done (or there was nothing to do), else Status and Error,
// as the request for that job alone would have answered.
type JobResult[R any] struct {
	ID     int64  `json:"id"`
	Reply  *R     `json:"reply,omitempty"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}
