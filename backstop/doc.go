// Package backstop is the agents' side of the master's time limits,
// shared by the process agent (agentd) and the Kubernetes backend
// (k8s/podagent).
//
// The master kills an attempt at its job's hard time limit itself; but a
// master whose store is unavailable changes nothing, and one out of reach
// sends nothing, so a limit falling then would be applied only once it is
// back, the job running (and charged) past its limit for the outage's
// length. Every reply of the master lists when the node's attempts reach
// their limits (api.TimeLimit). Limits keeps the last list, counted on
// the agent's own clock from the reply's arrival, and says which
// attempts are past their limit by Slack: the agent then stops such an
// attempt as the master's time-limit kill would, and its exit report
// says so (Mark), for the master to end it as its own kill does.
//
// Invariants: a reply older than the one last heard changes nothing; a
// registration's reply starts over (the agent may now talk to another
// master process, perhaps an older one); api.Report.StoppedAtLimit goes
// only to a master that sent time limits since the registration
// (ForMaster), since an older one refuses the field as unknown. The
// package does no I/O, reads no clock (the caller passes now) and starts
// no goroutine; callers guard a Limits with their own lock.
package backstop
