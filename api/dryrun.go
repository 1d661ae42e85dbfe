package api

import "time"

// SubmitReply answers POST /jobs.
type SubmitReply struct {
	ID    int64 `json:"id"`
	Tasks int   `json:"tasks"`
}

// DryRun answers POST /jobs?dry_run=true: what submitting the job now
// would get, with nothing stored. A job a submission would refuse gets
// the submission's error instead.
type DryRun struct {
	// Accepted is true: a submission would be accepted.
	Accepted bool   `json:"accepted"`
	Name     string `json:"name,omitempty"`
	Pool     string `json:"pool"`
	Project  string `json:"project"`
	User     string `json:"user"`
	Tasks    int    `json:"tasks"`
	Slots    int    `json:"slots"`
	// TimeLimitS is the time limit the job would run under, in seconds
	// (the file's, or a -t/--time override, as the master read it); 0
	// for none.
	TimeLimitS int64 `json:"time_limit_s,omitempty"`
	// Position is the place it would take in its pool's queue, from 1,
	// among the Queued jobs waiting there now.
	Position int `json:"position"`
	Queued   int `json:"queued"`
	// StartsNow says the scheduling its submission sets off would start
	// it (at least one of its tasks).
	StartsNow bool `json:"starts_now"`
	// Pending is the reason it would wait once that scheduling has
	// settled, with its estimated start; absent when it would start now.
	Pending *Pending `json:"pending,omitempty"`
	// Preempts lists the running jobs whose tasks that scheduling would
	// preempt to make room for it (it starts once their checkpoints have
	// landed), one entry per job; absent when it preempts nothing.
	Preempts []DryRunVictim `json:"preempts,omitempty"`
	// Resizes lists the running tasks that scheduling would shrink to
	// give it slots (a fair-share pool's elastic jobs above their share):
	// each checkpoints and restarts smaller, and it starts once their
	// checkpoints have landed; absent when it shrinks nothing.
	Resizes []DryRunResize `json:"resizes,omitempty"`
	// WouldStart is what would let it start now, for a job that would
	// wait without preempting or shrinking anything: the counterfactual that GET
	// /jobs/{id}/explain gives a waiting job (Explanation.WouldStart),
	// found on the state the submission's passes would leave; absent when
	// it would start now, preempt or shrink (Preempts, Resizes say for what).
	WouldStart *Counterfactual `json:"would_start,omitempty"`
	// AsOf is the master's time that it is judged at, as if submitted then.
	AsOf    time.Time `json:"as_of"`
	Summary string    `json:"summary"`
}

// DryRunVictim is a running job that a dry run's job would preempt.
type DryRunVictim struct {
	Job   int64  `json:"job"`
	Name  string `json:"name,omitempty"`
	User  string `json:"user,omitempty"`
	Tasks int    `json:"tasks"` // tasks preempted
	Slots int    `json:"slots"` // slots they hold
	// Why is the rule of the pool's policy that lets it (its priority
	// runs first, a QOS that preempts, a quota's reclaim, ...).
	Why string `json:"why"`
	// Private: the caller may not read the job; Name and User are empty.
	Private bool `json:"private,omitempty"`
}

// DryRunResize is a running task that a dry run's job would shrink: its
// job, the slots it holds and would restart with, and the rule.
type DryRunResize struct {
	Job  int64  `json:"job"`
	Name string `json:"name,omitempty"`
	User string `json:"user,omitempty"`
	From int    `json:"from"`
	To   int    `json:"to"`
	// Why is the rule that lets it (fair share: the job stays at or
	// above its share).
	Why string `json:"why"`
	// Private: the caller may not read the job; Name and User are empty.
	Private bool `json:"private,omitempty"`
}
