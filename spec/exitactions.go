package spec

import (
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/yamlfield"
)

// Exit actions: what happens to a task once a preemption, or the loss of
// its attempt, has stopped it (OSMO's exit actions). A pool of either
// format gives its jobs' defaults, on_preempt and max_retries, read here
// once; a scenario job, or a job file, may give its own.
const (
	OnPreemptReschedule = "reschedule"
	OnPreemptFail       = "fail"
	// NoRetryCap is MaxRetries when no cap is given.
	NoRetryCap = -1
)

// OnPreempts lists on_preempt's values, in the order messages give them.
var OnPreempts = []string{OnPreemptReschedule, OnPreemptFail}

// ExitActionFields reads a pool's (or a scenario job's) exit actions,
// on_preempt into onPreempt and max_retries (an integer >= 0; 0 is
// on_preempt: fail) into maxRetries, and reports which were given. The
// caller sets the defaults: OnPreemptReschedule and NoRetryCap for a
// pool.
func ExitActionFields(f *yamlfield.Fields, onPreempt *string, maxRetries *int) (onSet, maxSet bool) {
	onSet = yamlfield.Field(f, "on_preempt", onPreempt, yamlfield.Enum("on_preempt", OnPreempts...))
	maxSet = yamlfield.Field(f, "max_retries", maxRetries, yamlfield.IntAtLeast(0))
	return onSet, maxSet
}

// Preempts reports whether a pool's policy, with its options, ever
// preempts a task, QOS levels aside (QOSPreempts): a quota pool always
// may, a priority pool with preemption or backfill, a fair-share or
// multifactor pool with preemption.
func (pl Pool) Preempts() bool {
	switch pl.Policy {
	case sched.PolicyQuota:
		return true
	case sched.PolicyPriority:
		return pl.Preemption || pl.Backfill
	case sched.PolicyFairShare, sched.PolicyMultifactor:
		return pl.Preemption
	}
	return false
}

// QOSPreempts reports whether a QOS level that preempts (Parser's
// QOSPreempt) makes a pool of policy preempt: priority and multifactor
// pools order their jobs by QOS.
func QOSPreempts(policy sched.Policy) bool {
	return policy == sched.PolicyPriority || policy == sched.PolicyMultifactor
}
