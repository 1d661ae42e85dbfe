package master

import (
	"fmt"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/fencing"
)

// AgentTimeoutWarning says, of the configuration cfg read from path ("":
// none named), that its agent_timeout leaves the agents' fence no time
// to stop the tasks the master requeues at a node's loss before that
// loss (fencing.Bounds.Late), for a master whose long polls last
// syncWait (0: DefaultSyncWait) and agents with their default poll
// interval; "" when it does, or when cfg turns the fence off. Each agent
// warns of it in its own log, which the admin who set agent_timeout may
// never read: allot config check, the master's start and a reload say
// it where the admin looks.
func AgentTimeoutWarning(path string, cfg *config.Config, syncWait time.Duration) string {
	if cfg == nil || cfg.NoFence {
		return ""
	}
	if syncWait <= 0 {
		syncWait = DefaultSyncWait
	}
	timeout, pace := agentTimeout(cfg), fencing.DefaultPollInterval
	if !fencing.Default.Late(timeout, syncWait, pace) {
		return ""
	}
	if path != "" {
		path += ": "
	}
	return fmt.Sprintf("%sagent_timeout: %s is too short for agents to stop tasks before the master loses their node "+
		"(with the master's %s long poll and the agents' default settings, %s between polls, it needs at least %s): "+
		"an agent cut off from the master stops the tasks the master requeues only after the loss, when they may "+
		"already run elsewhere", path, timeout, syncWait, pace, fencing.Default.LeastTimeout(syncWait, pace))
}
