package agent

import "strings"

// AgentFenceStopped begins why an attempt ended (its exit report's
// error) when its agent's own fence stopped it: the agent had not heard
// the master for the fence's wait (agentd's fence.go). FenceStopped is
// the task shim's counterpart.
const AgentFenceStopped = "stopped by the agent's fence"

// FencedEnd reports whether why, an exit report's error (and so the
// reason the master ended the attempt with), says that a fence, the
// agent's or its task shim's, stopped the attempt because the master was
// not heard: the master tells such a stop apart from a preemption that a
// pass asked for (allot explain, allot job show). The agents of every
// version since the fence write these words, so the test needs no field
// of the report.
func FencedEnd(why string) bool {
	return strings.Contains(why, AgentFenceStopped) || strings.Contains(why, FenceStopped)
}
