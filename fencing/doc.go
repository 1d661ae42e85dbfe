// Package fencing holds the timing rule of the agents' fence
// (docs/reliability.md, "Fencing"): after how long without the master an
// agent stops the attempts the master would requeue at the node's loss,
// and whether an agent_timeout leaves it time to stop them before that
// loss. It is pure (no clock, no I/O) so that the agent, which applies
// it (agentd), and the master and allot config check, which warn of an
// agent_timeout too short for it, share one rule. It imports only api,
// for api.Fence.
package fencing
