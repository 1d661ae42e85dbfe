package agentd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/fencing"
)

// The fence: an agent that cannot reach the master stops the attempts
// that the master would run elsewhere once it loses the node, before it
// loses it, so that two attempts of a task do not run at once (they
// would write the same checkpoint directory). The master says in every
// reply how long it waits for the agent and which attempts it would hold
// through the loss (api.Fence); without it (an older master, or fence:
// false) the agent fences nothing. docs/reliability.md, "Fencing".

// Bounds of the fence's timing (fencing.Default); variables for tests.
var (
	// fenceFloor is the least silence after which the fence stops
	// anything (fencing.Bounds.Floor).
	fenceFloor = fencing.Default.Floor
	// fenceMargin is the least time between the fence's kill and the
	// master's loss of the node (fencing.Bounds.Margin).
	fenceMargin = fencing.Default.Margin
	// fenceTryMargin is how long before the fence would stop an attempt
	// the sync loop tries the master a last time, whatever its backoff
	// (fenceRetryCap): a master back by then answers, and its answer,
	// even the 404 of a restarted master (leasedLocked), is contact.
	fenceTryMargin = 2 * time.Second
)

// fenceState is the fence as the master last told it. Guarded by
// Agent.mu.
type fenceState struct {
	f    *api.Fence // nil: the master does not fence
	held map[agent.TaskID]bool
	// contact is when the last successful reply of the master arrived:
	// the master's own last contact with the node (from which its
	// agent_timeout counts) is no later, but for its processing time.
	contact time.Time
	// beat is when the last heartbeat of a master holding the agent's
	// long poll came (Agent.heartbeat): contact too, kept apart so that
	// a reply read before it still brings its terms.
	beat   time.Time
	warned bool // that the timeout leaves the fence no time to stop tasks
}

// last is the last contact with the master: a reply, or a heartbeat.
func (fs *fenceState) last() time.Time {
	if fs.beat.After(fs.contact) {
		return fs.beat
	}
	return fs.contact
}

// heardLocked records a successful exchange with the master, whose reply
// arrived at at and carried fence f; the caller holds mu.
func (a fencer) heardLocked(at time.Time, f *api.Fence) {
	fs := &a.fence
	if !at.After(fs.contact) {
		return // an older exchange's reply, after a newer one's
	}
	fs.contact = at
	switch {
	case f == nil && fs.f != nil:
		a.log.Info("the master no longer fences: tasks run on however long it is out of reach")
	case f != nil && (fs.f == nil || fs.f.AgentTimeoutMS != f.AgentTimeoutMS || fs.f.GraceS != f.GraceS):
		after, grace, late := fenceTimes(f, fs.hold(a.waitS), a.cfg.MinPollInterval, false)
		a.log.Info("fence: should the master be out of reach, the agent stops the tasks it would requeue before it loses the node",
			"after", after, "checkpoint_grace", grace, "agent_timeout", msDuration(f.AgentTimeoutMS))
		if late && !fs.warned {
			fs.warned = true
			a.log.Warn("fence: the master's agent_timeout is too short for the agent to stop tasks before the master loses the node; they are stopped after it",
				"agent_timeout", msDuration(f.AgentTimeoutMS), "after", after)
		}
	}
	fs.f, fs.held = f, nil
	if f != nil {
		fs.held = make(map[agent.TaskID]bool, len(f.Held))
		for _, id := range f.Held {
			fs.held[id] = true
		}
	}
	a.broadcast()
}

// heartbeat records that the master, holding the agent's long poll,
// was heard at at (api.SyncHeartbeatHeader): contact for the fence under
// its standing terms, as the master does not count the node silent while
// it holds its poll. Unlike a reply it wakes no loop: the fence's timer
// finds the later contact when it fires.
func (a fencer) heartbeat(at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if at.After(a.fence.beat) {
		a.fence.beat = at
	}
}

// leasedLocked records the answer, arrived at at, of a master that does
// not know the node but has not lost it either (it restarted): it loses
// the node unless the agent registers within lease (api.NodeLeaseHeader).
// That is contact for the fence, under its standing terms, as of when
// the master's own count began: lease before its agent timeout runs
// out. The fence's margin covers the reply's way back, as for any reply.
// The caller holds mu.
func leasedLocked(a *Agent, at time.Time, lease time.Duration) {
	if a.fence.f == nil {
		return
	}
	a.fencer().heardLocked(at.Add(lease-msDuration(a.fence.f.AgentTimeoutMS)), a.fence.f)
}

// hold is the longest the master holds a long poll of an agent whose
// sync wait it named waitS: at most half its agent timeout, as the
// master caps it.
func (fs *fenceState) hold(waitS int) time.Duration {
	h := time.Duration(waitS) * time.Second
	if fs.f != nil {
		h = min(h, msDuration(fs.f.AgentTimeoutMS)/2)
	}
	return h
}

// fenceTimes is the fence's rule (fencing.Bounds.Times, which the master
// and allot config check share to warn of a short agent_timeout) under
// the agent's bounds: after how long without a reply from the master the
// agent asks an attempt to checkpoint, the grace it gives it, and
// whether that is after the master loses the node (late).
func fenceTimes(f *api.Fence, hold, pace time.Duration, held bool) (after, grace time.Duration, late bool) {
	return fencing.Bounds{Floor: fenceFloor, Margin: fenceMargin}.Times(f, hold, pace, held)
}

func msDuration(ms int64) time.Duration { return time.Duration(max(ms, 0)) * time.Millisecond }

// fenced is an attempt the fence stops now, with the grace it gets.
type fenced struct {
	att   *attempt
	grace time.Duration
}

// fenceLoop stops the attempts whose time under the fence is up, until
// ctx is done (the agent stops: its OnExit policy decides then).
func (a fencer) fenceLoop(ctx context.Context) {
	runDue(ctx, a.Agent, func(now time.Time) ([]fenced, time.Time) {
		return a.fence.due(now, a.tasks, a.waitS, a.cfg.MinPollInterval, a.leaving || a.closing)
	}, a.fenceStop)
}

// runDue runs a loop of the agent that acts at deadlines (the fence, the
// time limits' backstop): under mu, due says what is due now and when
// the next falls due (zero: nothing pending); act then acts on each
// outside mu; and the loop sleeps until then, a change of the agent's
// attempts (changed), or ctx's end.
func runDue[T any](ctx context.Context, a *Agent, due func(now time.Time) ([]T, time.Time), act func(T)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		a.mu.Lock()
		ds, next := due(time.Now())
		ch := a.changed
		a.mu.Unlock()
		for _, d := range ds {
			act(d)
		}
		timer.Reset(time.Hour)
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-timer.C:
		}
	}
}

// due marks and returns the attempts of tasks the fence stops at now,
// and when the next one is due (zero for none), for an agent whose sync
// wait is waitS and poll interval pace; none while the agent stops
// (stopping). The caller holds the agent's mu.
func (fs *fenceState) due(now time.Time, tasks map[agent.TaskID]*attempt, waitS int, pace time.Duration, stopping bool) (due []fenced, next time.Time) {
	if fs.f == nil || fs.contact.IsZero() || stopping {
		return nil, time.Time{}
	}
	last := fs.last()
	silent := now.Sub(last)
	hold := fs.hold(waitS)
	for id, att := range tasks {
		if att.exited || att.fenced != "" {
			continue
		}
		held := fs.held[id]
		after, grace, _ := fenceTimes(fs.f, hold, pace, held)
		if silent < after {
			if at := last.Add(after); next.IsZero() || at.Before(next) {
				next = at
			}
			continue
		}
		// The words say the master was silent, not the node: a master
		// outage (a restart, an upgrade) is the common cause (trial
		// 2026-11-29a A8).
		att.fenced = fenceWhy(silent, msDuration(fs.f.AgentTimeoutMS), msDuration(fs.f.LostNodeGraceMS), held, att.stopped == api.CommandKill)
		due = append(due, fenced{att: att, grace: grace})
	}
	return due, next
}

// fenceWhy says why the agent's fence stopped an attempt after silent
// without a reply, in words that fit what the master does with it once
// it loses the node after timeout (lifecycle.HoldsThroughLoss): one
// being killed (killing: the master's kill came) it ends, killed; one it
// holds through the loss (held) it fails lostGrace later; any other it
// ends and, if the job may run again, requeues. "Requeues the attempt
// elsewhere" was said of a task being killed too (trial 2026-11-29g G8,
// of the shim's fence, whose words match these).
func fenceWhy(silent, timeout, lostGrace time.Duration, held, killing bool) string {
	then := fmt.Sprintf("the master ends the attempt after %s without contact, and requeues the task elsewhere if its job may run again", timeout)
	switch {
	case killing:
		then = fmt.Sprintf("the master ends the attempt, which was being killed, after %s without contact", timeout)
	case held:
		then = fmt.Sprintf("the master fails the attempt after %s without contact and %s more (lost_node_grace)", timeout, lostGrace)
	}
	return fmt.Sprintf(agent.AgentFenceStopped+": no reply from the master for %s; %s", silent.Round(time.Second), then)
}

// nextStop is when the fence would stop the next attempt, zero for none,
// for an agent whose sync wait is waitS and poll interval pace. The
// caller holds the agent's mu.
func (fs *fenceState) nextStop(tasks map[agent.TaskID]*attempt, waitS int, pace time.Duration) time.Time {
	var next time.Time
	if fs.f == nil || fs.contact.IsZero() {
		return next
	}
	hold := fs.hold(waitS)
	for id, att := range tasks {
		if att.exited || att.fenced != "" {
			continue
		}
		after, _, _ := fenceTimes(fs.f, hold, pace, fs.held[id])
		if at := fs.last().Add(after); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// fenceRetryCap cuts d, the sync loop's delay before its next try at
// now, so that the try comes fenceTryMargin before the fence would stop
// an attempt: a backoff grown through a master's outage (up to
// BackoffMax) must not sleep through its return until the fence fires.
// Within the margin the tries come every eighth of it.
func fenceRetryCap(a *Agent, d time.Duration, now time.Time) time.Duration {
	a.mu.Lock()
	next := a.fence.nextStop(a.tasks, a.waitS, a.cfg.MinPollInterval)
	a.mu.Unlock()
	if next.IsZero() {
		return d
	}
	return min(d, max(next.Sub(now)-fenceTryMargin, fenceTryMargin/8))
}

// fenceStop stops one attempt as a preemption does: the checkpoint
// request, then the kill at the end of the grace. Its exit report says
// the fence stopped it, with the outcome preempted, so that a master
// that did not lose the node meanwhile requeues it from its checkpoint,
// and one that did ignores it (the attempt is no longer open).
func (a fencer) fenceStop(d fenced) {
	id := d.att.spec.ID()
	err := d.att.task.Preempt(d.grace)
	switch {
	case errors.Is(err, agent.ErrTaskDone):
		// It ended by itself meanwhile: its report says how.
		a.mu.Lock()
		d.att.fenced = ""
		a.mu.Unlock()
		return
	case err != nil:
		a.log.Warn("fence: checkpoint request incomplete", "task", id.String(), "err", err)
	}
	a.mu.Lock()
	note := d.att.fenced
	a.mu.Unlock()
	a.log.Warn("fence: stopping the attempt, as the master would run it elsewhere", "task", id.String(), "grace", d.grace, "why", note)
}
