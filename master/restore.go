package master

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// A restarted master rebuilds its mirror from the store (restore): the
// nodes, the live jobs with their tasks and open attempts, and what the
// snapshot orders by and carries (launchorder.go, reservations.go).

// restorer rebuilds the mirror of m, once, in New, before anything else
// can reach the Master, so nothing it touches needs mu. It has no state
// but the Master it fills; being a type of its own keeps the rebuild's
// steps off the running Master's methods.
type restorer struct {
	m *Master
}

// restore loads the mirror from the store: nodes, live jobs with all their
// tasks, and the open attempts. It re-queues the preempt and kill commands
// that a previous master may not have delivered, and settles jobs whose
// state lags behind their tasks'.
func (r *restorer) restore(ctx context.Context) error {
	m := r.m
	if err := r.restoreNodes(ctx); err != nil {
		return err
	}
	live, err := m.st.Jobs(ctx, store.JobFilter{States: []store.JobState{store.JobQueued, store.JobRunning}})
	if err != nil {
		return err
	}
	active, err := m.st.Tasks(ctx, store.TaskFilter{States: []store.TaskState{
		store.TaskStarting, store.TaskRunning, store.TaskPreempting, store.TaskKilling, store.TaskPreempted}})
	if err != nil {
		return err
	}
	for _, t := range active {
		if _, ok := m.jobs[t.JobID]; ok {
			continue
		}
		j, err := m.st.Job(ctx, t.JobID)
		if err != nil {
			return err
		}
		m.jobs[j.ID] = newJob(j)
	}
	for _, j := range live {
		m.jobs[j.ID] = newJob(j)
	}
	for _, j := range m.jobs {
		m.order = append(m.order, j)
	}
	slices.SortFunc(m.order, func(a, b *mjob) int { return cmp.Compare(a.rec.ID, b.rec.ID) })
	for id, j := range m.jobs {
		if err := r.restoreJob(ctx, id, j); err != nil {
			return err
		}
	}
	if err := r.restorePlaces(ctx); err != nil {
		return err
	}
	if err := r.restoreLefts(ctx); err != nil { // lostgangend.go
		return err
	}
	for _, j := range m.jobs {
		if err := m.settleJob(ctx, j, m.now()); err != nil {
			return err
		}
	}
	for _, j := range m.jobs {
		m.fair.addLeaf(j.rec.Project, j.rec.User)
	}
	if err := m.restoreUsage(ctx); err != nil {
		return err
	}
	if err := m.planner.restoreBudgets(ctx); err != nil {
		return err
	}
	if err := m.planner.restoreRuns(ctx); err != nil {
		return err
	}
	// An elastic job scheduled before the restart makes every pass
	// confirmed still, though it may have ended: restore loads the live
	// jobs only, and a job's min_slots is in its spec, which no query
	// reads cheaply, so the master stores the fact itself (saveGrew).
	grew, err := m.st.Marked(ctx, store.MarkGrows)
	if err != nil {
		return fmt.Errorf("restore whether an elastic job was scheduled: %w", err)
	}
	m.planner.grew, m.planner.grewSaved = grew, grew
	m.log.Info("state restored", "jobs", len(m.jobs), "nodes", len(m.nodes))
	return nil
}

// restoreNodes loads the nodes, each in the pool the configuration
// gives it over its agent's (nodePool: the default pool, with a warning,
// where no rule pins a node whose agent's pool it lacks), with when each
// lost one was lost (restoreLosses), and records
// the moves of a changed configuration (recordMoves).
func (r *restorer) restoreNodes(ctx context.Context) error {
	m := r.m
	now := m.now()
	nodes, err := m.st.Nodes(ctx)
	if err != nil {
		return err
	}
	for _, rec := range nodes {
		n := newNode(rec)
		n.pool = nodePool(m.cfg, rec.Name, rec.Pool)
		if note := poolNote(m.cfg, rec.Name, rec.Pool); note != "" {
			m.log.Warn("node in the default pool: "+note, "node", rec.Name)
		}
		n.lastSeen = now // a grace period of one agent timeout to re-register
		n.seen, n.savedBeat = rec.HeartbeatAt, rec.HeartbeatAt
		m.nodes[rec.Name] = n
	}
	evs, err := m.st.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		return fmt.Errorf("read the node history: %w", err)
	}
	r.restoreLosses(evs)
	r.restoreLeaves(evs)
	return r.recordMoves(ctx, evs)
}

func (r *restorer) restoreJob(ctx context.Context, id int64, j *mjob) error {
	m := r.m
	spec, err := decodeSpec(j.rec.Spec, j.rec.Kind)
	if err != nil {
		m.log.Warn("job spec unreadable; scheduling without its hints", "job", id, "err", err)
	}
	spec.changed(j.rec)
	j.spec = spec
	tasks, err := m.st.Tasks(ctx, store.TaskFilter{JobID: id})
	if err != nil {
		return err
	}
	atts, err := m.st.Attempts(ctx, store.AttemptFilter{JobID: id, OpenOnly: true})
	if err != nil {
		return err
	}
	open := map[int]store.Attempt{}
	var last store.Attempt
	for _, a := range atts {
		open[a.Index] = a
		if !a.StartedAt.Before(last.StartedAt) {
			last = a
		}
	}
	// The priority the job last started a task with, as the master that
	// started it kept it (startMF): a pass that finds the job pending
	// again replaces it, as before the restart.
	j.startMF = last.StartPriority
	preempts, err := r.killedPreempting(ctx, j, tasks) // restorekill.go
	if err != nil {
		return fmt.Errorf("job %d: %w", id, err)
	}
	for _, rec := range tasks {
		if err := r.restoreTask(j, rec, open, preempts[rec.Index]); err != nil {
			return err
		}
	}
	// A crash between preempted and queued cannot happen (both go in one
	// transaction), but a store written by another master might hold one.
	for _, t := range j.tasks {
		if t.rec.State == store.TaskPreempted {
			rec, err := m.st.TransitionTask(ctx, store.TaskTransition{JobID: id, Index: t.rec.Index,
				From: store.TaskPreempted, To: store.TaskQueued, At: m.now(), Reason: requeuedPreempted})
			if err != nil {
				return err
			}
			m.setTask(t, rec)
		}
	}
	if err := r.nextFor(ctx, j); err != nil {
		return fmt.Errorf("job %d: %w", id, err)
	}
	if err := r.agentStops(ctx, j); err != nil {
		return fmt.Errorf("job %d: %w", id, err)
	}
	if err := r.restoreSearch(ctx, j); err != nil {
		return fmt.Errorf("job %d: restore its searcher: %w", id, err)
	}
	return nil
}

// restoreTask adds task rec of job j to the mirror, with its open attempt
// (from open, by task index) while it is active, and sends again the
// preempt or kill a stopping task was sent; preemptBy is, for a task
// killed while it was being preempted, that preemption's deadline
// (killedPreempting), zero else.
func (r *restorer) restoreTask(j *mjob, rec store.Task, open map[int]store.Attempt, preemptBy time.Time) error {
	m := r.m
	t := newTask(j, rec)
	j.tasks = append(j.tasks, t)
	j.count.Add(rec.State, 1)
	if !rec.State.Active() {
		return nil
	}
	a, ok := open[rec.Index]
	if !ok || a.Number != rec.Attempt {
		return fmt.Errorf("task %d/%d is %s without its open attempt %d", j.rec.ID, rec.Index, rec.State, rec.Attempt)
	}
	t.att = &mattempt{number: a.Number, started: a.StartedAt, usedTo: a.StartedAt, runningAt: a.RunningAt}
	t.att.Launch(a.StartedAt.Unix(), a.Backfilled) // a move's restart continues one: restoreLaunches
	for _, p := range a.Placement {
		st := partStarting
		if rec.State != store.TaskStarting {
			st = partRunning
		}
		t.att.parts = append(t.att.parts, &mpart{node: p.Node, gpus: p.GPUs, state: st, delivered: true})
	}
	m.hold(t)
	if rec.State == store.TaskPreempting && len(rec.Reserved) > 0 {
		// A move or resize in flight: the task restarts on its
		// reservation once the checkpoint lands, as before the restart.
		t.next = partsOf(rec.Reserved)
		// Who for and why are read back from its event (restorer.nextFor).
		t.Replacement.Reserve(reservedKind(rec.Reason), rec.UpdatedAt.Unix(), 0, "")
		m.holdParts(t, t.next)
	}
	switch rec.State {
	case store.TaskPreempting:
		m.sendAll(t, api.CommandPreempt, poolGrace(m.cfg, j.rec.Pool))
	case store.TaskKilling:
		t.Stop.Kill(store.TaskKilled, "") // for a cause not known
		// The grace again, in full: an agent still killing the
		// attempt keeps its first deadline (agent.Task.Kill), which a
		// kill during a preemption keeps at the preemption's where
		// that came first: so does sendAll then, for the views and the
		// forecast, as before the restart.
		if !preemptBy.IsZero() {
			t.att.stop, t.att.stopBy = api.Command{Type: api.CommandPreempt, Task: t.id()}, preemptBy
		}
		m.sendAll(t, api.CommandKill, poolKillGrace(m.cfg, j.rec.Pool))
	}
	return nil
}

// restoreLosses gives each node that is lost or left when the master
// starts the time it went so, from the node history evs: the
// lost_node_grace of the tasks held through its loss counts from then,
// as it did before the restart, and as the simulator counts it. It used
// to count again from the restart, which held such tasks a grace longer
// than the configuration says.
func (r *restorer) restoreLosses(evs []store.NodeEvent) {
	for _, e := range evs {
		n := r.m.nodes[e.Node]
		if n == nil || n.up() {
			continue
		}
		switch {
		case e.Deleted != nil || e.From == "" && e.To == store.NodeUp:
			n.lostAt = time.Time{} // an earlier node of the name
		case e.To == store.NodeLost || e.To == store.NodeLeft:
			n.lostAt = e.At
		}
	}
}

// restoreLeaves marks leaving each node that is up when the master
// starts and whose agent's goodbye in the node history evs
// (store.NodeLeaving) has no end after it: no registration while leaving
// (store.NodeStayed), no loss, leave, deletion or return. The master
// kept the leave in memory only, and learnt of it again at the agent's
// next leaving sync: a pass before that could place work on the node,
// which the what-if export, draining the node from the goodbye to the
// leave's end (whatif_nodestates.go), did not. The agent's registration
// with this master says whether it still leaves (api.Register.Leaving).
func (r *restorer) restoreLeaves(evs []store.NodeEvent) {
	open := map[string]bool{} // node → its last goodbye has no end yet
	for _, e := range evs {
		switch {
		case e.To == store.NodeLeaving:
			open[e.Node] = true
		case e.Deleted != nil || e.To == store.NodeDeleted || e.From == store.NodeLeaving ||
			e.To == store.NodeLost || e.To == store.NodeLeft || e.To == store.NodeUp:
			delete(open, e.Node)
		}
	}
	for name := range open {
		if n := r.m.nodes[name]; n != nil && n.up() {
			n.leaving = true
		}
	}
}

// recordMoves records, in one transaction, each node that the
// configuration the master starts with puts in another pool than the
// node history evs last gave it (store.Node's PoolInEffect), or gives
// other labels than those the
// history last had in effect (store.MoveNodes, relabels), as a reload of
// that configuration would have: a master restarted on a changed file
// moves and relabels nodes too, and the what-if export reads their
// pools and labels from the history. A node whose history has no pool
// (registered before shapes were recorded) is not moved, and one whose
// history has no labels in effect (registered before they were
// recorded, and neither moved nor relabeled since: nodeRules) is not
// relabeled. A failure refuses to start.
func (r *restorer) recordMoves(ctx context.Context, evs []store.NodeEvent) error {
	m := r.m
	last := map[string]string{} // node → the pool its history last gave it
	for _, e := range evs {
		switch {
		case e.Deleted != nil:
			delete(last, e.Node)
		case e.Shape != nil && e.Shape.PoolInEffect != "":
			last[e.Node] = e.Shape.PoolInEffect
		}
	}
	_, _, effect := nodeRules(evs)
	var moves []store.NodeMove
	for _, name := range slices.Sorted(maps.Keys(m.nodes)) {
		n := m.nodes[name]
		labels := nodeLabels(m.cfg, n)
		was, ok := last[name]
		if !ok {
			was = n.pool
		}
		wasLabels, ok := effect[name]
		if !ok {
			wasLabels = labels
		}
		moves = relabels(moves, name, was, wasLabels, n.pool, labels)
	}
	if len(moves) == 0 {
		return nil
	}
	if err := m.st.Update(ctx, func(tx store.Tx) error { return tx.MoveNodes(ctx, moves, m.now()) }); err != nil {
		return fmt.Errorf("record the nodes that the configuration moves to other pools or relabels since the last run (%s): %w",
			plural.Count(len(moves), "event"), err)
	}
	return nil
}
