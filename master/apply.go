package master

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// taskOp is one task transition to persist; ok says it was stored.
type taskOp struct {
	t     *mtask
	tr    store.TaskTransition
	then  *store.TaskTransition // a second transition in the same transaction
	rec   store.Task
	ok    bool
	start *startItem
	// next is the placement a move or resize (kind) reserves
	// (tr.Reserve's parts); budget says the transition counts against
	// the project's preemption budget.
	next   []*mpart
	kind   lifecycle.Replace
	budget bool
	// usage is the record of the attempt that tr closes, stored in the
	// same transaction.
	usage *store.Usage
}

// startItem is a plan start that passed its re-checks.
type startItem struct {
	parts    []*mpart
	backfill bool
}

// persistTasks stores the transitions in one transaction. A transition
// whose compare-and-set fails is skipped (its ok stays false) and the rest
// go on; any other error rolls everything back.
func (m *Master) persistTasks(ctx context.Context, ops []*taskOp) error {
	if len(ops) == 0 {
		return nil
	}
	var err error
	if m.batches.bt != nil {
		// Within a batch any error fails the whole batch, which undoes
		// the mirror: the ops are not half-applied either way.
		err = m.storeTasks(ctx, m.batches.bt.tx, ops)
	} else {
		err = m.st.Update(ctx, func(tx store.Tx) error { return m.storeTasks(ctx, tx, ops) })
	}
	if err != nil {
		for _, op := range ops {
			op.ok = false
		}
		return fmt.Errorf("persist task transitions: %w", err)
	}
	for _, op := range ops {
		if !op.ok || op.usage == nil {
			continue
		}
		if tail := heldTail(m.nodes, op); tail != nil {
			m.batches.later(func() {
				u := tail.u
				m.fair.charge(u.Pool, u.Project, u.User, u.Start.Unix(), u.End.Unix(), u.GPUSeconds)
				m.tails.hold(tail)
			})
		} else {
			u := op.usage
			m.batches.later(func() { m.charged(u) })
		}
	}
	return nil
}

// storeTasks writes ops in tx; see persistTasks.
func (m *Master) storeTasks(ctx context.Context, tx store.Tx, ops []*taskOp) error {
	for _, op := range ops {
		op.ok = false
		rec, err := tx.TransitionTask(ctx, op.tr)
		if errors.Is(err, store.ErrConflict) {
			m.log.Warn("task transition skipped", "err", err)
			continue
		}
		if err != nil {
			return err
		}
		if op.then != nil {
			if rec, err = tx.TransitionTask(ctx, *op.then); err != nil {
				return err
			}
		}
		if op.usage != nil {
			if _, err := tx.RecordUsage(ctx, *op.usage); err != nil {
				return err
			}
		}
		if err := keepPartExits(ctx, tx, op, rec); err != nil {
			return err
		}
		op.rec, op.ok = rec, true
	}
	return nil
}

// apply carries out a plan's effects, in lifecycle.Decide's order, those
// lifecycle.Settle skips left out: it re-checks every one against the
// mirror, persists those that still hold in one transaction, and only
// then hands the commands to the agents. An effect's Task is the
// snapshot's allocation (current). now is the settling's instant
// (loop.go), at which it stores the transitions, starts the attempts and
// settles the jobs. It returns how many starts and preemptions (moves
// and resizes included) it applied. Callers hold mu.
func (pl *planner) apply(ctx context.Context, effects []lifecycle.Effect, now time.Time) (starts, preempts int, err error) {
	var ops []*taskOp
	claimed := map[string]map[int]bool{} // GPUs taken by earlier items of this plan
	picked := map[*mtask]bool{}
	for i := range effects {
		var op *taskOp
		switch e := &effects[i]; e.Op {
		case lifecycle.OpPreempt:
			op = pl.preemptOp(e, now)
		case lifecycle.OpMove, lifecycle.OpResize:
			op = pl.replaceOp(e, claimed, now)
		case lifecycle.OpStart:
			op = pl.startOp(e, claimed, picked, now)
		}
		if op != nil {
			ops = append(ops, op)
		}
	}
	if err := pl.m.persistTasks(ctx, ops); err != nil {
		return 0, 0, err
	}
	touched := map[*mjob]bool{}
	for _, op := range ops {
		if !op.ok {
			continue
		}
		t := op.t
		pl.m.setTask(t, op.rec)
		touched[t.job] = true
		if op.start == nil {
			preempts++
			t.preempted = pl.nextLaunch()
			if op.next != nil {
				t.next = op.next
				t.Replacement.Reserve(op.kind, now.Unix(), op.tr.ForJob, op.tr.Why)
				pl.m.holdParts(t, t.next)
			}
			if op.budget {
				project := t.job.rec.Project
				pl.m.batches.later(func() { pl.notePreempted(project, now) })
			}
			pl.m.sendAll(t, api.CommandPreempt, poolGrace(pl.m.cfg, t.job.rec.Pool))
			pl.m.log.Info("preempting task", "task", t.id().String(), "reason", op.tr.Reason)
			continue
		}
		starts++
		t.launch = pl.nextLaunch()
		t.att = &mattempt{number: op.rec.Attempt, started: now, parts: op.start.parts, usedTo: now}
		t.att.Launch(now.Unix(), op.start.backfill)
		pl.m.hold(t)
		pl.sendStarts(t)
	}
	for j := range touched {
		if err := pl.m.settleJob(ctx, j, now); err != nil {
			return starts, preempts, err
		}
	}
	return starts, preempts, nil
}

// preemptOp is the transition of a preemption, nil when its task ended
// or was already asked to stop since the snapshot.
func (pl *planner) preemptOp(e *lifecycle.Effect, now time.Time) *taskOp {
	t := pl.current(int(e.Task))
	if t == nil {
		return nil
	}
	reason, cause := preemptionRule(&pl.snap, sched.Preemption{Alloc: int(e.Task), For: e.For})
	return &taskOp{t: t, budget: true, tr: store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: t.rec.State, To: store.TaskPreempting, Attempt: t.rec.Attempt, At: now, Reason: reason, Cause: cause,
		ForJob: pl.snapJobID(e.For)}}
}

// snapJobID is the ID of the snapshot's job i, 0 for none (a resize's
// For is -1).
func (pl *planner) snapJobID(i int) int64 {
	if i < 0 || i >= len(pl.snap.Jobs) {
		return 0
	}
	id, err := strconv.ParseInt(pl.snap.Jobs[i].ID, 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// startOp is the transition of a start: the queued task it launches
// (not one picked already) on free GPUs (not claimed already), nil when
// there is no such task or the GPUs are no longer free.
func (pl *planner) startOp(e *lifecycle.Effect, claimed map[string]map[int]bool, picked map[*mtask]bool, now time.Time) *taskOp {
	j := pl.roster.at(e.Job)
	if !pl.built.unchanged(j) {
		return nil // killed, ended or changed while the core planned
	}
	t := pl.pickTask(j, picked)
	if t == nil {
		return nil
	}
	parts, ok := pl.placeParts(e.Nodes, claimed)
	if !ok {
		return nil
	}
	picked[t] = true
	tr := store.TaskTransition{JobID: j.rec.ID, Index: t.rec.Index, From: store.TaskQueued,
		To: store.TaskStarting, Attempt: t.rec.Attempt, At: now, Placement: placementOf(parts), Reason: "scheduled",
		Backfill: e.Backfill, StartPriority: storedPriority(j.startMF)}
	if e.Backfill {
		tr.Reason = "scheduled (backfill)"
	}
	if t.rec.CheckpointDir == "" {
		tr.CheckpointDir = filepath.Join(pl.m.opt.CheckpointRoot, j.idString(), strconv.Itoa(t.rec.Index))
	}
	return &taskOp{t: t, tr: tr, start: &startItem{parts: parts, backfill: e.Backfill}}
}

// pickTask chooses the queued task a start launches: tasks that ran before
// (preempted and requeued) resume first, the last preempted first (as
// lifecycle.Job.Launch resumes them, launchorder.go), then by index.
func (pl *planner) pickTask(j *mjob, picked map[*mtask]bool) *mtask {
	if j.rec.State.Terminal() {
		return nil
	}
	var best *mtask
	for _, t := range j.tasks {
		if t.rec.State != store.TaskQueued || picked[t] || pl.m.agents.strays.strayWaits(t) {
			continue
		}
		if best == nil || resumesBefore(t, best) {
			best = t
		}
	}
	return best
}

// placeParts turns a start's slot counts into concrete GPUs: the lowest
// free indexes of each node. It fails when a node went down, registered
// again or began to drain (placeable), or does not have the GPUs free any
// more.
func (pl *planner) placeParts(ns []sched.NodeSlots, claimed map[string]map[int]bool) ([]*mpart, bool) {
	parts := make([]*mpart, 0, len(ns))
	for _, x := range ns {
		n := pl.view.nodes[x.Node]
		if !pl.placeable(x.Node) {
			return nil, false
		}
		taken := claimed[n.rec.Name]
		strayed := pl.m.agents.strays.strayHeld(n.rec.Name)
		var gpus []store.GPURef
		for _, g := range n.rec.GPUs {
			if len(gpus) == int(x.Slots) {
				break
			}
			if n.used[g.Index] == nil && !taken[g.Index] && !strayed[g.Index] {
				gpus = append(gpus, store.GPURef{Index: g.Index, UUID: g.UUID})
			}
		}
		if len(gpus) < int(x.Slots) {
			pl.m.log.Warn("plan start skipped: GPUs no longer free", "node", n.rec.Name, "want", x.Slots, "free", len(gpus))
			return nil, false
		}
		parts = append(parts, &mpart{node: n.rec.Name, gpus: gpus})
	}
	claim(claimed, parts)
	return parts, true
}

// sendStarts queues one start command per part of t's new attempt.
func (pl *planner) sendStarts(t *mtask) {
	j := t.job
	killGraceS := int64(poolKillGrace(pl.m.cfg, j.rec.Pool) / time.Second)
	for rank, p := range t.att.parts {
		gpus := make([]int, len(p.gpus))
		for i, g := range p.gpus {
			gpus[i] = g.Index
		}
		// No WorkDir: the agent makes its own WORKDIR/jobs/JOB/TASK
		// (agentd/doc.go) and refuses a relative one.
		spec := &agent.TaskSpec{
			JobID:           j.idString(),
			TaskIndex:       t.rec.Index,
			Attempt:         t.rec.Attempt,
			RestartCount:    t.rec.Restarts,
			Entrypoint:      j.rec.Entrypoint,
			Env:             j.rec.Environment,
			GPUs:            gpus,
			CheckpointDir:   t.rec.CheckpointDir,
			Hyperparameters: t.rec.Hyperparameters,
			NodeRank:        rank,
			NodeCount:       len(t.att.parts),
			PodSpec:         j.spec.podSpec,
			KillGraceS:      &killGraceS,
		}
		if j.search != nil && t.rec.Index < j.search.Trials() {
			spec.MaxSteps = j.search.MaxSteps(t.rec.Index)
		}
		n := pl.m.nodes[p.node]
		pl.m.batches.send(n, api.Command{Type: api.CommandStart, Start: spec, Task: spec.ID()})
	}
	pl.m.log.Info("starting task", "task", t.id().String(), "nodes", len(t.att.parts))
}

// onDrainingNode reports whether a task has a part on a draining node.
// Its slots there are gone once it stops, so preempting it frees nothing
// for the job it would be preempted for: the master lets it run on
// (lifecycle.Settle skips the preemption, asking settling.OnDrained).
func (pl *planner) onDrainingNode(t *mtask) bool {
	for _, p := range t.att.parts {
		if n := pl.m.nodes[p.node]; n != nil && n.draining() {
			return true
		}
	}
	return false
}
