package api

import "time"

// JobEvent is one entry of a job's event log (GET /jobs/{id}/events): a
// transition of the job or of one of its tasks, or a change of the job
// (PATCH /jobs/{id}), which leaves its state as it was and says in Reason
// what it changed ("time limit 10m0s → 1m30s: changed through the API").
type JobEvent struct {
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`
	// Task is the task's index; nil for an event of the job itself.
	Task *int `json:"task,omitempty"`
	// Attempt is the task's attempt after the transition.
	Attempt int    `json:"attempt,omitempty"`
	From    string `json:"from"`
	To      string `json:"to"`
	Reason  string `json:"reason,omitempty"`
	// Cause is, for a task's transition, why it was made, in a word a
	// program reads (preempted tasks: priority, quota_reclaim, ...; time_limit,
	// not_run, start_failed, moved, resized, ...); Why says it in words,
	// ForJob names the job it was made for, and PartRan marks a start
	// that ran on some of its nodes.
	Cause   string `json:"cause,omitempty"`
	Why     string `json:"why,omitempty"`
	ForJob  int64  `json:"for_job,omitempty"`
	PartRan bool   `json:"part_ran,omitempty"`
}

// JobEvents is a job's event log, oldest first. More is true when events
// after the last one listed were left out by the limit: ask again with
// after set to the last one's Seq.
type JobEvents struct {
	Job    int64      `json:"job"`
	Events []JobEvent `json:"events"`
	More   bool       `json:"more,omitempty"`
}
