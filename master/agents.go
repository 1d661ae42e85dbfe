package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// agents owns the agent protocol: registration, syncs and the reports
// they carry, the transitions those reports drive (a task running, a part
// exiting, an attempt finishing or lost, a search's metrics), agents gone
// silent, and the agents' log uploads. Every change of the mirror here
// happens under Master.mu, in the batches that doc.go describes. syncQ is
// guarded by syncMu alone, taken after Master.mu (or without it), so that
// a sync queues without waiting for a batch's commit (reportbatch.go).
type agents struct {
	server
	syncMu sync.Mutex
	syncQ  []*syncReq
	// strays are the attempts the master ended that agents still run
	// and that are asked to checkpoint, holding their GPUs (stray.go).
	strays strayBook
	// late amends attempts ended lost whose exits are heard of late
	// (lateexit.go).
	late lateExits
	// trials applies the metrics of experiments' trials and the
	// searcher's stops (experiments.go), limits the time limits the
	// agents enforce (agentlimits.go): parts over the agents' side, as
	// they use its state.
	trials agentTrials
	limits agentLimits
}

// errUnknownNode answers a sync from an agent that has not registered with
// this master process.
var errUnknownNode = errors.New("node is not registered with this master; register again")

// register upserts the node and reconciles: attempts the agent runs that
// the master does not know get kill commands; attempts the master believes
// run there that the agent does not list are settled by the first sync
// (whose reports may still say how they ended), and ended as lost if it
// does not. The registration says whether the node leaves from now on
// (api.Register.Leaving): a leaving agent registering again (its sync
// got 404) keeps the leave, or starts it if the master did not know of
// it; any other agent ends the leave (upsertNode). Callers hold mu.
func (ag *agents) register(ctx context.Context, reg api.Register) (api.RegisterReply, error) {
	now := ag.m.now()
	gpus := make([]store.GPU, len(reg.GPUs))
	for i, g := range reg.GPUs {
		gpus[i] = store.GPU{Index: g.Index, UUID: g.UUID, Type: g.Type, MemoryMiB: g.MemoryMiB}
	}
	n := ag.m.nodes[reg.Name]
	wasLeaving := n != nil && n.leaving && n.up()
	// The pool and labels in effect go in the node history with the
	// agent's, which the row keeps: the rules that give them are gone at
	// the next reload (relabel.go), which reads its own over the agent's.
	rec, err := ag.upsertNode(ctx, store.Node{Name: reg.Name, Pool: reg.Pool, Labels: reg.Labels,
		InEffect:     lifecycle.NodeLabels(reg.Labels, configRule(ag.m.cfg, reg.Name)),
		PoolInEffect: nodePool(ag.m.cfg, reg.Name, reg.Pool),
		GPUs:         gpus, HeartbeatAt: now}, wasLeaving, reg.Leaving)
	if err != nil {
		return api.RegisterReply{}, err
	}
	fresh := n == nil
	if fresh {
		n = newNode(rec)
		ag.m.nodes[reg.Name] = n
	}
	was, wasPool := n.rec, n.pool
	n.rec = rec
	n.pool = nodePool(ag.m.cfg, rec.Name, rec.Pool)
	if !fresh {
		ag.reshaped(n, was, wasPool, reg.Running)
	}
	ag.m.forgetFeasible()
	n.registered, n.lastSeen, n.seen, n.savedBeat, n.acked = true, now, now, now, 0
	n.leaving = reg.Leaving
	n.regs++
	n.version = reg.Version
	ag.m.pub.markNode(n)
	switch {
	case reg.Leaving && !wasLeaving:
		ag.m.log.Info("agent leaving: it registered while shutting down; no new task goes to the node", "node", reg.Name)
	case wasLeaving && !reg.Leaving:
		ag.m.log.Info("agent no longer leaving: it registered again", "node", reg.Name)
	}
	cmds, strays, err := registeredRunning(ctx, ag, n, reg, now)
	if err != nil {
		return api.RegisterReply{}, err
	}
	cmds = append(cmds, ag.take(n)...)
	noteBack(ctx, ag.m, n, was.State, reg.Running) // nodeheld.go
	ag.m.metric.agentRegistrations.Inc()
	// A node back from a loss, and the attempts its agent still runs that
	// the master ended meanwhile (stopped now), are what an operator looks
	// for after an agent restart: say them.
	attrs := []any{"node", reg.Name, "pool", n.pool, "gpus", len(gpus),
		"running", len(reg.Running), "unsettled", len(n.reconcile), "version", reg.Version}
	if len(reg.Exited) > 0 {
		attrs = append(attrs, "exited", len(reg.Exited)) // their reports to come
	}
	if !fresh && was.State == store.NodeLost {
		attrs = append(attrs, "was", "lost")
	}
	if strays > 0 {
		attrs = append(attrs, "stopping", strays)
	}
	ag.m.log.Info("agent registered", attrs...)
	ag.m.kick()
	return api.RegisterReply{SyncWaitS: int(ag.m.opt.SyncWait / time.Second), Commands: cmds,
		NodePlacement: nodePlacement(ag.m.cfg, n), Fence: ag.fence(n), TimeLimits: ag.limits.timeLimitsFor(n),
		Accepts: agentAccepts}, nil
}

// ruledLabels are node n's labels as the scheduler matches them when its
// node rule adds labels, nil when it adds none: what the registration
// reply tells the agent, whose own labels then stand.
func ruledLabels(cfg *config.Config, n *mnode) map[string]string {
	if len(nodeRule(cfg, n)) == 0 {
		return nil
	}
	return nodeLabels(cfg, n)
}

// upsertNode registers node in the store, and the change of its leave
// in the same transaction. wasLeaving says that the node was up and
// leaving, leaving that the registration says it leaves (api.Register
// Leaving). An agent that registers without saying so while its node
// leaves ends the leave: the goodbye is in the node history
// (store.NodeLeaving, leave.go), and as the node never went down, no
// return of it ends the leave there, so the registration records its end
// (store.NodeStayed), and the what-if export resumes the node then, as
// the master does (whatif_nodestates.go); without it the replay kept the
// node drained for good. One that says so while its node is not leaving
// (it was lost, or left, or the master never heard the goodbye) records
// the goodbye, as the first leaving sync does (leave.go), so that the
// export drains the node from then.
func (ag *agents) upsertNode(ctx context.Context, node store.Node, wasLeaving, leaving bool) (store.Node, error) {
	if wasLeaving == leaving {
		return ag.m.st.UpsertNode(ctx, node)
	}
	var rec store.Node
	err := ag.m.st.Update(ctx, func(tx store.Tx) error {
		var err error
		if rec, err = tx.UpsertNode(ctx, node); err != nil {
			return err
		}
		if leaving {
			return tx.NodeLeaving(ctx, node.Name, node.HeartbeatAt)
		}
		return tx.NodeStayed(ctx, node.Name, node.HeartbeatAt)
	})
	return rec, err
}

// lookup finds the task whose current open attempt id names.
func (ag *agents) lookup(id agent.TaskID) *mtask {
	jid, err := strconv.ParseInt(id.JobID, 10, 64)
	if err != nil {
		return nil
	}
	j := ag.m.jobs[jid]
	if j == nil || id.TaskIndex < 0 || id.TaskIndex >= len(j.tasks) {
		return nil
	}
	t := j.tasks[id.TaskIndex]
	if t.att == nil || t.att.number != id.Attempt {
		return nil
	}
	return t
}

// runsOn reports whether the master expects t's open attempt to run on
// node; false for a nil t (an attempt lookup did not find).
func (t *mtask) runsOn(node string) bool {
	if t == nil {
		return false
	}
	p := t.part(node)
	return p != nil && p.state != partExited
}

// take removes and returns the node's queued commands, marking the starts
// among them delivered.
func (ag *agents) take(n *mnode) []api.Command {
	cmds := n.commands
	n.commands = nil
	for _, c := range cmds {
		if c.Type != api.CommandStart {
			continue
		}
		if t := ag.lookup(c.Task); t != nil {
			if p := t.part(n.rec.Name); p != nil {
				p.delivered, p.deliveredSync, p.deliveredAt = true, n.syncs, ag.m.now()
				ag.m.pub.markJob(t.job) // its notes: it may have run now (mayHaveRun)
			}
		}
	}
	if cmds == nil {
		cmds = []api.Command{}
	}
	return cmds
}

// syncReports stores a sync's reports and reconciles the running list.
// It returns the sequence number acknowledged. Callers hold mu.
func (ag *agents) syncReports(ctx context.Context, n *mnode, s api.Sync) (int64, error) {
	now := ag.m.now()
	ag.m.batches.touchNode(n)
	n.lastSeen, n.seen = now, now
	n.syncs++
	ag.m.metric.agentSyncs.Inc()
	n.exitsHeld = exitsHeld(s.Exited) // the agent's word, whatever becomes of the batch
	reports := slices.Clone(s.Reports)
	slices.SortStableFunc(reports, func(a, b api.Report) int { return int(a.Seq - b.Seq) })
	n.goodbye = s.Leaving || s.Final // leftWith (exitwords.go), before leave marks the node
	for _, r := range reports {
		if r.Seq <= n.acked {
			continue // stored before; the agent missed the acknowledgement
		}
		if err := ag.report(ctx, n, r); err != nil {
			n.goodbye = false
			return n.acked, fmt.Errorf("report %d on %s: %w", r.Seq, r.Task, err)
		}
		n.acked = r.Seq
	}
	n.goodbye = false
	runs := map[agent.TaskID]bool{}
	for _, id := range s.Running {
		runs[id] = true
		if !ag.heardRunning(id, n.rec.Name, now) {
			if _, held := ag.strays.holds[strayKey{id, n.rec.Name}]; held {
				continue // syncStrays follows it
			}
			// As at registration (stray.go).
			c, err := ag.strays.stray(ctx, n, id, now)
			if err != nil {
				return n.acked, err
			}
			ag.m.batches.send(n, c)
			continue
		}
		if err := listedRunning(ctx, ag, id, n.rec.Name); err != nil {
			return n.acked, err
		}
		if c, ok := stopAgain(ag.lookup(id), n.rec.Name, now, stopResend); ok {
			ag.m.batches.send(n, c)
		}
	}
	ag.strays.syncStrays(n, runs, now)
	if err := ag.settleMissing(ctx, n, startingToo(runs, s.Starting)); err != nil {
		return n.acked, err
	}
	if err := ag.leave(ctx, n, s); err != nil {
		return n.acked, err
	}
	if now.Sub(n.savedBeat) >= agentTimeout(ag.m.cfg)/3 {
		if err := ag.m.batches.w().Heartbeat(ctx, n.rec.Name, now); err != nil {
			return n.acked, err
		}
		n.savedBeat = now
	}
	return n.acked, nil
}

// report applies one report of an agent.
func (ag *agents) report(ctx context.Context, n *mnode, r api.Report) error {
	t := ag.lookup(r.Task)
	if t == nil && r.Event == api.EventExited {
		return ag.late.lateExit(ctx, n, r) // an attempt that already ended: lost, its exit heard of late (lateexit.go)?
	}
	if t == nil && r.Event == api.EventMetrics {
		return ag.late.lateMetric(ctx, n, r) // its metrics ahead of that exit (experiments.go)
	}
	if t == nil {
		return nil // an attempt that already ended, or never was
	}
	p := t.part(n.rec.Name)
	if p == nil {
		// The attempt runs on other nodes only: a node may report on its
		// own tasks alone (a forged report could end another's work).
		return &auth.Error{Status: http.StatusForbidden,
			Msg: fmt.Sprintf("node %s reported on task %s, which does not run on it", n.rec.Name, r.Task)}
	}
	if p.state == partExited {
		return nil
	}
	ag.m.batches.touch(t.job)
	switch r.Event {
	case api.EventRunning:
		if p.state == partStarting {
			p.state = partRunning
		}
		return ag.maybeRunning(ctx, t)
	case api.EventMetrics:
		return ag.trials.recordMetric(ctx, t, r)
	case api.EventExited:
		// The reason an agent that applied the time limit gave the end so
		// far (stoppedAtLimit), put back with the part if this fails.
		before, agentSaid, attempt := *p, t.Stop.Reason(""), t.rec.Attempt
		p.state, p.outcome, p.exitCode, p.err = partExited, agent.Outcome(r.Outcome), r.ExitCode, r.Error
		p.checkpoint = reportedCheckpoint(r.Checkpoint)
		p.exitedAt = partExit(t.att, r.At, ag.m.now())
		p.noStart = before.state == partStarting && p.outcome == agent.OutcomeFailed
		if err := ag.limits.exitedPart(ctx, t, n.rec.Name, p, r.StoppedAtLimit); err != nil {
			t.Stop.AgentApplied(agentSaid)
			// Nothing was stored: the part must still look running, so
			// that the agent's resent report is applied, not ignored as
			// a duplicate (which would hold the task and its GPUs).
			*p = before
			return err
		}
		return ag.trials.metricNameNote(ctx, t, attempt) // a search's trial that never reported its metric
	}
	return nil
}

// maybeRunning moves a starting task to running once every part runs.
func (ag *agents) maybeRunning(ctx context.Context, t *mtask) error {
	if t.rec.State != store.TaskStarting {
		return nil
	}
	for _, p := range t.att.parts {
		if p.state != partRunning {
			return nil
		}
	}
	rec, err := ag.m.batches.w().TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: store.TaskStarting, To: store.TaskRunning, Attempt: t.rec.Attempt, At: ag.m.now(), Reason: partsRunReason(len(t.att.parts))})
	if err != nil {
		return err
	}
	ag.m.setTask(t, rec)
	if t.att.runningAt.IsZero() {
		t.att.runningAt = rec.UpdatedAt
	}
	return nil
}

// partExited handles the end of one part: a part that failed has the others
// killed, and the attempt ends once every part has exited.
func (ag *agents) partExited(ctx context.Context, t *mtask, node string, p *mpart) error {
	left := 0
	for _, q := range t.att.parts {
		if q.state != partExited {
			left++
		}
	}
	failed := p.outcome == agent.OutcomeFailed || (p.outcome == agent.OutcomeKilled && t.rec.State != store.TaskKilling)
	if left > 0 && failed && t.rec.State != store.TaskKilling {
		// The task ends, once its other parts are killed, as its
		// attempt's end would end it (lifecycle.Ending.Decide).
		kind, reason, cause := lifecycle.EndFailed, partEnd(p, len(t.att.parts)), store.Cause("")
		if p.noStart {
			kind, reason, cause = lifecycle.EndStartFailed, startFailure(p), store.CauseStartFailed
		}
		return ag.m.killTask(ctx, t, lifecycle.Ending{Kind: kind}.Decide().Task, reason, cause)
	}
	if left > 0 && p.outcome == agent.OutcomePreempted && t.rec.State == store.TaskRunning {
		return ag.agentStopped(ctx, t, node)
	}
	if left > 0 {
		return nil
	}
	return ag.finish(ctx, t)
}

// startFailure is the reason a task whose part p could not start ends:
// "could not start on node N: what the agent said". Its transitions keep
// the cause store.CauseStartFailed, which the what-if export reads back
// as start_fails.
func startFailure(p *mpart) string {
	s := "could not start on node " + p.node
	if p.err != "" {
		s += ": " + p.err
	}
	return s
}

// finish ends an attempt whose parts have all exited, as
// lifecycle.Ending.Decide says of how they exited (exitKind) and of the
// task's state, its next placement and its job's exit actions: the
// decision the simulator's lifecycle.Cluster ends its attempts by.
func (ag *agents) finish(ctx context.Context, t *mtask) error {
	kind, first := exitKind(t)
	e, ea := ag.m.ending(t, kind, true)
	v := e.Decide()
	tr, then := ag.finishTransitions(t, e, v, first)
	if then != nil && v.ByExit {
		note := ""
		if v.Unplaced {
			note = unplacedNote
		}
		then.Reason = ea.failReason(preemptedLead, t.Retries) + note
	}
	op := &taskOp{t: t, tr: tr, then: then, usage: usageOf(t, tr.End.ExitedAt)}
	if err := ag.m.persistTasks(ctx, []*taskOp{op}); err != nil {
		return err
	}
	if !op.ok {
		return nil
	}
	// The attempt that ended, logged before the restart a resize or
	// move opens (Attempt + 1), which op.rec already numbers (trial
	// 2026-11-29f F2: the log named the new attempt as ended).
	ag.m.log.Info("attempt ended", "task", agent.TaskID{JobID: t.job.idString(), TaskIndex: t.rec.Index,
		Attempt: t.rec.Attempt}.String(), "state", op.rec.State, "reason", tr.Reason)
	next, began, byAgent := t.next, t.att.first(), t.att.stoppedBy != ""
	ag.m.setTask(t, op.rec)
	t.exited = time.Time{}
	if op.rec.State.Terminal() {
		t.exited = tr.End.ExitedAt
	}
	if byAgent && op.rec.State == store.TaskQueued {
		// As a one-node attempt its agent preempted (requeued from
		// running, setTask): it resumes first among its job's waiting
		// tasks, as the simulator's agent preemption orders it.
		t.preempted = ag.m.planner.nextLaunch()
	}
	if op.rec.State == store.TaskStarting {
		ag.m.planner.restartOn(t, next, tr.At, began)
	}
	ag.m.kick()
	return ag.m.settleJob(ctx, t.job, ag.m.now())
}

// exitKind is how the attempt of t, whose parts have all exited, ended:
// completed when every part did, preempted when none failed and one was
// preempted or the task was preempting, else it could not start (the
// first failed part never started) or failed; first is the first part
// that failed, nil for none.
func exitKind(t *mtask) (lifecycle.EndKind, *mpart) {
	var all, failed, preempted int
	var first *mpart
	for _, p := range t.att.parts {
		switch p.outcome {
		case agent.OutcomeCompleted:
			all++
		case agent.OutcomePreempted:
			preempted++
		default:
			failed++
			if first == nil {
				first = p
			}
		}
	}
	switch {
	case all == len(t.att.parts):
		return lifecycle.EndCompleted, first
	case failed == 0 && (preempted > 0 || t.rec.State == store.TaskPreempting):
		return lifecycle.EndPreempted, first
	case first != nil && first.noStart:
		return lifecycle.EndStartFailed, first
	}
	return lifecycle.EndFailed, first
}

// finishTransitions are the transitions by which verdict v on ending e
// ends task t's attempt (first: its first failed part): the end, with
// its reason and cause, and after a preemption what follows it at once
// (then: requeued, restarted on the task's next placement, or failed by
// its exit actions, whose reason finish gives).
func (ag *agents) finishTransitions(t *mtask, e lifecycle.Ending, v lifecycle.Verdict, first *mpart) (store.TaskTransition, *store.TaskTransition) {
	now := ag.m.now()
	tr := store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index, From: t.rec.State, To: v.Task,
		Attempt: t.rec.Attempt, At: now, End: &store.AttemptEnd{State: v.Attempt, ExitCode: exitCode(t, first),
			ExitedAt: exitOf(t.att, now)}}
	switch {
	case e.Killing && v.Attempt != lifecycle.AttemptCompleted: // not a stop it outran
		tr.Reason, tr.Cause = t.Stop.Reason(t.rec.Reason), store.Cause(t.Stop.Cause())
	case e.Kind == lifecycle.EndCompleted:
		tr.Reason = "completed"
		ag.m.planner.runs.note(tr.At.Sub(t.att.started), t.job.rec.TimeLimit)
	case e.Kind == lifecycle.EndPreempted:
		tr.Reason = preemptReason(t.att.parts)
		requeued := requeuedPreempted
		if t.att.stoppedBy != "" {
			tr.Reason, requeued = agentStoppedEnd(t.att.stoppedBy), requeuedAgentStopped
		} else if why, ok := leftWith(ag.m, t); ok {
			tr.Reason, tr.Cause, requeued = why, store.CauseAgentStopped, requeuedAgentStopped // exitwords.go
		}
		tr.End.Checkpoint = attemptCheckpoint(t.att.parts) // ckptwords.go
		then := &store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index, From: store.TaskPreempted,
			To: v.Then, At: tr.At, Reason: preemptedRequeue(requeued, tr.End.Checkpoint)} // ckptwords.go
		if requeuedTask(t.rec.Reason) && !v.Restarts() {
			tr.Reason, then.Reason = requeuedEnd(t.rec.Reason, tr.End.Checkpoint) // api_requeue.go
		}
		switch {
		case v.Restarts():
			// A resize is no move: an elastic task growing in place read
			// "checkpointed to move".
			tr.Reason = "checkpointed to move"
			if t.Replacement.Kind == lifecycle.Resize {
				tr.Reason = "checkpointed to resize"
			}
			then.Placement, then.Reason = placementOf(t.next), "restarted on its new placement"
		case v.Unplaced:
			then.Reason, then.Cause = unplacedReason, store.CauseUnplaced
		}
		return tr, then
	case e.Kind == lifecycle.EndStartFailed:
		// What follows a failed start is the rule the simulator's
		// lifecycle.EventStartFailed follows too (lifecycle.StartFailed).
		tr.Reason, tr.Cause = startFailure(first), store.CauseStartFailed
	default:
		tr.Reason = partEnd(first, len(t.att.parts))
	}
	return tr, nil
}

// exitCode is the exit code an attempt ends with: the first failed part's,
// else 0 when every part gave one.
func exitCode(t *mtask, first *mpart) *int {
	if first != nil {
		return first.exitCode
	}
	for _, p := range t.att.parts {
		if p.exitCode == nil {
			return nil
		}
	}
	zero := 0
	return &zero
}

// loseAttempt ends an attempt whose node is gone or does not run it
// (cause store.CauseNotRun: "node N does not run attempt A",
// settleMissing): parts elsewhere are killed, or, when a node was lost
// and the task waits to resume, asked to checkpoint (stopLeft,
// lifecycle.CheckpointsOnLoss); the task is killed when it
// was being killed, else requeued when it is preemptible or never ran
// and its exit actions reschedule it, failed otherwise
// (lifecycle.Ending.Decide of lifecycle.EndLost, the simulator's rule
// too, which lostEnd and so the notes of held tasks follow).
func (ag *agents) loseAttempt(ctx context.Context, t *mtask, reason string, cause store.Cause) error {
	return ag.endAttempt(ctx, t, reason, cause, lifecycle.EndLost)
}

// endAttempt ends t's attempt, which no agent will report on, as kind
// (lifecycle.EndLost, or lifecycle.EndKilled: killHeld) says, by
// lifecycle.Ending.Decide, as loseAttempt says. The
// transition keeps cause, and whether an attempt still starting may have
// run (PartRan: a part of a gang ran, or a start reached its agent, so
// the master takes the task to have run, which the store's attempt,
// running only once every part is, does not say), for the what-if
// export (historyEvents): a start that never reached an agent, or that
// its agent, heard from, does not run, is start_lost, an attempt that ran
// on a node not lost meanwhile lost (lostOnUpNode).
func (ag *agents) endAttempt(ctx context.Context, t *mtask, reason string, cause store.Cause, kind lifecycle.EndKind) error {
	ran := t.mayHaveRun()
	if cause == store.CauseNotRun {
		ran = t.reportedRun() // its agent, heard from, does not run it
	}
	e, ea := ag.m.ending(t, kind, ran)
	v := e.Decide()
	tr := store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index, From: t.rec.State, To: v.Task,
		Attempt: t.rec.Attempt, At: ag.m.now(), Reason: reason, End: &store.AttemptEnd{State: v.Attempt},
		Cause: cause, PartRan: ran && t.rec.State == store.TaskStarting}
	if v.ByExit {
		tr.Reason = ea.failReason(reason, t.Retries)
	}
	// The parts left on nodes up are killed at once, without the pool's
	// kill_grace: the attempt ends now and frees its GPUs, which the next
	// pass may give to another start. But those of a task that waits to
	// resume from its checkpoint, its node lost, are asked to write it
	// (B18), and hold their GPUs and its start until they end (stopLeft).
	checkpoint := kind == lifecycle.EndLost && cause != store.CauseNotRun &&
		lifecycle.CheckpointsOnLoss(v.Waits(), ran, len(ag.leftParts(t)) > 0)
	ag.stopLeft(t, checkpoint)
	op := &taskOp{t: t, tr: tr, usage: usageOf(t, tr.At)}
	if err := ag.m.persistTasks(ctx, []*taskOp{op}); err != nil {
		return err
	}
	if !op.ok {
		return nil
	}
	ag.m.setTask(t, op.rec)
	ag.m.log.Warn("attempt ended on no agent's word", "task", t.job.idString()+"/"+strconv.Itoa(t.rec.Index), "to", tr.To,
		"end", v.Attempt, "reason", reason)
	ag.m.kick()
	return ag.m.settleJob(ctx, t.job, ag.m.now())
}
