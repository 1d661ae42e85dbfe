package master

import (
	"fmt"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/fencing"
)

// FenceWarnings are the warnings of the configuration cfg read from path
// about the agents' fence: AgentTimeoutWarning's, then FenceGraceWarnings'.
func FenceWarnings(path string, cfg *config.Config, syncWait time.Duration) []string {
	var out []string
	if w := AgentTimeoutWarning(path, cfg, syncWait); w != "" {
		out = append(out, w)
	}
	return append(out, FenceGraceWarnings(path, cfg, syncWait)...)
}

// FenceGraceWarnings says, for each pool whose file sets a grace, when
// the agents' fence gives the preemptible tasks it stops less than that
// to checkpoint: a master silent for more than the fence's wait (a
// crash, an upgrade, a slow start) stops them with what is left before
// agent_timeout, which config.md's grace does not promise (trial
// 2026-11-29a A5). It names the file's line, the grace the fence gives
// and the least agent_timeout that gives the full grace. None when the
// fence is off, or when AgentTimeoutWarning's case holds (the fence is
// late whatever the grace); a grace left at its default warns of
// nothing, so that a default configuration stays quiet (its 30s grace
// and agent_timeout leave the fence 6s, as reliability.md says).
func FenceGraceWarnings(path string, cfg *config.Config, syncWait time.Duration) []string {
	if cfg == nil || cfg.NoFence {
		return nil
	}
	if syncWait <= 0 {
		syncWait = DefaultSyncWait
	}
	timeout, pace := agentTimeout(cfg), fencing.DefaultPollInterval
	var out []string
	for _, pl := range cfg.Pools {
		if pl.GraceLine == 0 || pl.Grace <= 0 {
			continue
		}
		f := api.Fence{AgentTimeoutMS: timeout.Milliseconds(), GraceS: int64(pl.Grace / time.Second)}
		after, grace, late := fencing.Default.Times(&f, syncWait, pace, false)
		if late || grace >= pl.Grace {
			continue
		}
		where := fmt.Sprintf("line %d", pl.GraceLine)
		if path != "" {
			where = path + ":" + fmt.Sprint(pl.GraceLine)
		}
		out = append(out, fmt.Sprintf("%s: pool %s: grace %s, but a preemptible task that the agents' fence stops "+
			"(after %s without a reply from the master) gets only %s to checkpoint before agent_timeout (%s); "+
			"an agent_timeout of at least %s gives it the full grace, and fence: false keeps tasks running "+
			"through a master's outage (reliability.md, Fencing)",
			where, pl.Name, pl.Grace, after, grace, timeout, leastTimeoutFor(pl.Grace, syncWait, pace)))
	}
	return out
}

// maxFenceTimeout bounds leastTimeoutFor's search.
const maxFenceTimeout = 24 * time.Hour

// leastTimeoutFor is the least agent_timeout, in whole seconds, under
// which the fence gives a task its full grace, for long polls held up to
// hold and spaced by pace; 0 when none up to a day does.
func leastTimeoutFor(grace, hold, pace time.Duration) time.Duration {
	f := api.Fence{GraceS: int64(grace / time.Second)}
	for t := time.Second; t <= maxFenceTimeout; t += time.Second {
		f.AgentTimeoutMS = t.Milliseconds()
		if _, g, late := fencing.Default.Times(&f, hold, pace, false); !late && g >= grace {
			return t
		}
	}
	return 0
}

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
