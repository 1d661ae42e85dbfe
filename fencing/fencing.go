package fencing

import (
	"time"

	"github.com/allot-sched/allot/api"
)

// Bounds are the fence's fixed bounds: the agent's are Default, which
// its tests shorten.
type Bounds struct {
	// Floor is the least silence after which the fence stops anything:
	// a long poll lost now and then must not stop tasks.
	Floor time.Duration
	// Margin is the least time between the fence's kill and the
	// master's loss of the node, for the master's own processing of the
	// last exchange and the reply's way back; a tenth of agent_timeout
	// when that is more.
	Margin time.Duration
}

// Default are the bounds agents fence by.
var Default = Bounds{Floor: 5 * time.Second, Margin: time.Second}

// DefaultPollInterval is an agent's least time between two long polls
// (agentd.Config.MinPollInterval) when its configuration names none.
const DefaultPollInterval = time.Second

// Times says after how long without a reply from the master an agent
// asks an attempt to checkpoint (after), and the grace it gives it,
// under fence f, with long polls held up to hold and spaced by pace.
// An attempt the master would requeue at the loss (not held) must be
// gone by the loss, agent_timeout less a margin: it is asked that much
// less the pool's checkpoint grace before, but not before a healthy
// agent can go without a reply (two long polls, and the floor), which
// shortens its grace; late says that even that is after the margin.
// A held attempt fails at agent_timeout + lost_node_grace: it is stopped
// then, with the full grace.
func (b Bounds) Times(f *api.Fence, hold, pace time.Duration, held bool) (after, grace time.Duration, late bool) {
	timeout, lostGrace := msDuration(f.AgentTimeoutMS), msDuration(f.LostNodeGraceMS)
	grace = time.Duration(max(f.GraceS, 0)) * time.Second
	if held {
		return timeout + lostGrace + b.margin(timeout), grace, false
	}
	quiet, killBy := b.quiet(timeout, hold, pace), timeout-b.margin(timeout)
	after = max(killBy-grace, quiet)
	return after, max(killBy-after, 0), quiet >= killBy
}

// Late reports whether an agent_timeout of timeout leaves the fence no
// time to stop an attempt before the master loses the node, for long
// polls held up to hold (the master's sync wait) and spaced by pace: the
// agent then stops it only after the loss, when the master may already
// run it elsewhere (Times' late, whatever the grace).
func (b Bounds) Late(timeout, hold, pace time.Duration) bool {
	return b.quiet(timeout, hold, pace) >= timeout-b.margin(timeout)
}

// maxLeastTimeout bounds LeastTimeout's search: a sync wait of hours is
// no configuration the master takes.
const maxLeastTimeout = 24 * time.Hour

// LeastTimeout is the shortest agent_timeout, in whole seconds, that is
// not Late for hold and pace; 0 when none up to a day is.
func (b Bounds) LeastTimeout(hold, pace time.Duration) time.Duration {
	// Late holds for every timeout under twice the hold (the quiet is
	// then more than the timeout); from there the quiet is fixed and the
	// time before the margin grows with the timeout, so the first
	// timeout that is not late is the least.
	for t := max(2*hold, time.Second).Truncate(time.Second); t <= maxLeastTimeout; t += time.Second {
		if !b.Late(t, hold, pace) {
			return t
		}
	}
	return 0
}

// quiet is the least silence after which the fence stops anything: two
// long polls, each held at most half the timeout, with a pace between,
// and not under the floor.
func (b Bounds) quiet(timeout, hold, pace time.Duration) time.Duration {
	return max(2*min(hold, timeout/2)+pace, b.Floor)
}

func (b Bounds) margin(timeout time.Duration) time.Duration { return max(timeout/10, b.Margin) }

func msDuration(ms int64) time.Duration { return time.Duration(max(ms, 0)) * time.Millisecond }
