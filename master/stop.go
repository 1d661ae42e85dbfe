package master

import (
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// Asking an attempt to stop: sendAll sends a preempt or kill with its
// pool's grace and notes it on the attempt, and a stop lost on its way
// is sent again.
//
// A node's commands leave its queue as the master writes a reply, so a
// reply lost on its way (a connection cut after the write, an agent
// given up on a silent poll) loses them. A lost start shows: the agent
// does not list the attempt, and the master reconciles it. A lost
// preempt or kill does not: the agent lists the attempt running, as it
// would while it checkpoints or dies, and the task would stay preempting
// or killing, its GPUs held, for ever. So an agent that still lists a
// part of an attempt being stopped gets its stop again once stopResend
// has passed since the last one (a long poll's hold and more, so that a
// stop on its way is not doubled), and a registering agent at once: its
// process may be new. Both commands are idempotent on the agent: a
// second preempt changes nothing, a second kill never moves its deadline
// later.

// stopResend is how long after a stop went to a node that node's agent,
// still running the part, gets it again.
const stopResend = 30 * time.Second

// stopAgain returns the stop to send again to node's agent, which lists
// task t's attempt running, when t is being preempted or killed and its
// stop went there at least after ago; it notes the send.
func stopAgain(t *mtask, node string, now time.Time, after time.Duration) (api.Command, bool) {
	if t == nil || t.att == nil || t.att.stop.Type == "" ||
		t.rec.State != store.TaskPreempting && t.rec.State != store.TaskKilling {
		return api.Command{}, false
	}
	p := t.part(node)
	if p == nil || p.state == partExited || now.Sub(p.stopAt) < after {
		return api.Command{}, false
	}
	p.stopAt = now
	return t.att.stop, true
}

// sendAll queues a preempt or kill command for every part of t's attempt
// that has not exited, and notes on the attempt the stop it asked
// (lifecycle.Attempt.Ask): the request is the task's transition, which
// its callers persisted and set first (rec.UpdatedAt).
//
// A kill of a task being preempted (a user's kill of its job, its time
// limit) leaves its agent the preemption's deadline where it comes
// before the kill's grace ends (agent.Task.Kill keeps the earlier): the
// attempt ends killed by then. So the attempt's deadline (stopBy), which
// the views show (readview_ending.go), and the forecast's (Ask) are the
// earlier of the two; the kill's grace (stopGrace) stays what the
// command says.
func (m *Master) sendAll(t *mtask, typ string, grace time.Duration) {
	at := t.rec.UpdatedAt // the request, persisted before this
	by := at.Add(grace)
	if typ == api.CommandKill && t.att.stop.Type == api.CommandPreempt && t.att.stopBy.Before(by) {
		by = t.att.stopBy
	}
	t.att.stop = api.Command{Type: typ, Task: t.id(), GraceS: int64(grace / time.Second)}
	t.att.stopGrace, t.att.stopBy = grace, by
	t.att.Ask(at.Add(time.Second-1).Unix(), int64((max(by.Sub(at), 0)+time.Second-1)/time.Second))
	now := m.now()
	for _, p := range t.att.parts {
		if p.state == partExited {
			continue
		}
		if n := m.nodes[p.node]; n != nil && n.up() {
			m.batches.send(n, t.att.stop)
			p.stopAt = now
		}
	}
}

// poolGrace is a pool's preemption grace period.
func poolGrace(cfg *config.Config, pool string) time.Duration {
	for _, p := range cfg.Pools {
		if p.Name == pool && p.Grace > 0 {
			return p.Grace
		}
	}
	return DefaultGrace
}

// poolKillGrace is the kill_grace of a pool: how long its killed tasks
// have between SIGTERM and SIGKILL. 0 is a setting (kill at once); a
// pool a reload removed has the default.
func poolKillGrace(cfg *config.Config, pool string) time.Duration {
	for _, p := range cfg.Pools {
		if p.Name == pool {
			return p.KillGrace
		}
	}
	return config.DefaultKillGrace
}
