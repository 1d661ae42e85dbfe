package master

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// strayBook holds the attempts the master ended that agents still run
// and that are asked to checkpoint, each holding its GPUs until it ends;
// a part of agents of its own. Guarded by Master.mu.
type strayBook struct {
	server
	holds map[strayKey]*strayHold
	// lefts are the lost gangs' attempts whose parts on nodes up were
	// asked to checkpoint and have not all ended (lostgangend.go).
	lefts map[agent.TaskID]*leftWait
}

// Superseded attempts (trial F13). An agent killed with kill -9 leaves
// its tasks running; past agent_timeout the master loses the node, ends
// the attempts there lost and requeues the preemptible tasks, to resume
// from their last checkpoint. When the agent comes back it adopts the
// processes still running and lists them: attempts the master ended. A
// SIGKILL at once threw away everything they did since their last
// checkpoint, and their task then restarted from it. Instead, when no
// later attempt of the task has started and its job is preemptible, the
// listed attempt (the stray) is asked to checkpoint as a preemption asks
// (CommandPreempt with the pool's grace: the preempt file and SIGTERM,
// the agent's SIGKILL at the deadline), and until it has ended nothing
// is placed on its GPUs and its task does not start again, anywhere:
// its next attempt resumes from the checkpoint the stray writes, and no
// two attempts of one task ever write the same checkpoint at once. The
// hold ends when the agent no longer lists the stray (it ended), or when
// the node is lost again, left or deleted; past the grace and
// strayMargin the master sends a kill (the agent's own deadline kill
// lost, or the agent restarted in the grace) and holds on until the end.
//
// Otherwise the stray is killed at once, without a grace, as before:
// a later attempt of its task started already (two attempts would
// write one checkpoint), its task ended or its job is not preemptible
// (there is nothing to resume), or its GPUs went to another task in
// the meantime (that task's start waits for the stray's group to be
// gone).
//
// The hold lives in the master's memory only. It is derived from the
// agent's running list: a restarted master decides again when the agent
// registers with it, as the first master did (a new grace; the agent
// keeps the first deadline: a second preempt changes nothing). Nothing is
// lost by not storing it: the work the grace saves is the stray's own
// checkpoint, on disk. A lost gang's part is held again so too, its
// attempt followed from the store (lostgang.go, lostgangend.go), for the
// end the export needs.

// strayMargin is how long past its grace a stray is given before the
// master sends it a kill.
const strayMargin = 15 * time.Second

// strayKey names one part of a stray: an attempt of a gang lists on each
// of its nodes.
type strayKey struct {
	id   agent.TaskID
	node string
}

// strayHold is a stray part being checkpointed: the GPUs it holds on its
// node, when its grace (and strayMargin) runs out, when its stop last
// went out, and whether the kill after the grace did.
type strayHold struct {
	t      *mtask
	gpus   []int
	until  time.Time
	sentAt time.Time
	killed bool
	// left marks a lost gang's part on a node still up (holdLeft), whose
	// end the store records with its attempt's other parts' (leftWait);
	// ended once its agent no longer lists it, the hold let go of when
	// the batch that records that commits.
	left, ended bool
}

// stop is the command the stray gets: its preempt, or the kill once
// its grace has run out.
func (h *strayHold) stop(id agent.TaskID, grace time.Duration) api.Command {
	if h.killed {
		return api.Command{Type: api.CommandKill, Task: id}
	}
	return api.Command{Type: api.CommandPreempt, Task: id, GraceS: int64(grace / time.Second)}
}

// strayFacts are what decides a stray's stop (preemptStray).
type strayFacts struct {
	// known: the task exists (its job was not deleted).
	known bool
	// waiting: the task is queued with the stray's attempt its last: no
	// later attempt started, and it did not end.
	waiting bool
	// preemptible: its job is.
	preemptible bool
	// gpus: the stray's GPUs on the node are known (the attempt's
	// placement), and taken: another task holds one of them.
	gpus, taken bool
}

// preemptStray says whether a stray gets the checkpoint grace (true) or
// a kill at once, and why, for the log.
func preemptStray(f strayFacts) (bool, string) {
	switch {
	case !f.known:
		return false, "its task is gone"
	case !f.waiting:
		return false, "its task ended or started again since"
	case !f.preemptible:
		return false, "its job is not preemptible"
	case !f.gpus:
		return false, "its placement is not known"
	case f.taken:
		return false, "its GPUs went to another task"
	}
	return true, "its task waits to resume from its checkpoint"
}

// strayTask is the task of attempt id, nil when it is gone.
func (sb *strayBook) strayTask(id agent.TaskID) *mtask {
	jid, err := strconv.ParseInt(id.JobID, 10, 64)
	if err != nil {
		return nil
	}
	j := sb.m.jobs[jid]
	if j == nil || id.TaskIndex < 0 || id.TaskIndex >= len(j.tasks) {
		return nil
	}
	return j.tasks[id.TaskIndex]
}

// strayGPUs are the GPU indexes attempt id of task t held on node: its
// closed attempt's, or the store's after a restart of the master.
func (sb *strayBook) strayGPUs(ctx context.Context, t *mtask, id agent.TaskID, node string) ([]int, bool, error) {
	var parts []store.Placement
	if c := t.closed; c != nil && c.number == id.Attempt {
		for _, p := range c.parts {
			parts = append(parts, store.Placement{Node: p.node, GPUs: p.gpus})
		}
	} else {
		atts, err := sb.m.st.Attempts(ctx, store.AttemptFilter{JobID: t.job.rec.ID})
		if err != nil {
			return nil, false, fmt.Errorf("read the placement of stray attempt %s: %w", id, err)
		}
		for _, a := range atts {
			if a.Index == id.TaskIndex && a.Number == id.Attempt {
				parts = a.Placement
			}
		}
	}
	for _, p := range parts {
		if p.Node != node {
			continue
		}
		gpus := make([]int, 0, len(p.GPUs))
		for _, g := range p.GPUs {
			gpus = append(gpus, g.Index)
		}
		return gpus, true, nil
	}
	return nil, false, nil
}

// stray answers attempt id, which node n's agent runs and the master
// ended: the stop it gets (preemptStray), which it returns after holding
// its GPUs when it is a preempt. One held already gets its stop again.
func (sb *strayBook) stray(ctx context.Context, n *mnode, id agent.TaskID, now time.Time) (api.Command, error) {
	key := strayKey{id, n.rec.Name}
	if h := sb.holds[key]; h != nil {
		h.sentAt = now
		return h.stop(id, poolGrace(sb.m.cfg, h.t.job.rec.Pool)), nil
	}
	t := sb.strayTask(id)
	f := strayFacts{known: t != nil}
	var gpus []int
	if t != nil {
		f.waiting = t.att == nil && t.rec.State == store.TaskQueued && t.rec.Attempt == id.Attempt &&
			!t.job.rec.State.Terminal()
		f.preemptible = t.job.rec.Preemptible
	}
	if f.known && f.waiting && f.preemptible {
		var err error
		if gpus, f.gpus, err = sb.strayGPUs(ctx, t, id, n.rec.Name); err != nil {
			return api.Command{}, err
		}
		f.taken = slices.ContainsFunc(gpus, func(g int) bool { return n.used[g] != nil })
	}
	ok, why := preemptStray(f)
	w := sb.leftOf(id, n.rec.Name) // a lost gang's part, asked to checkpoint at the loss?
	if !ok {
		if w != nil {
			// Killed at once, it ends now, give or take a sync.
			w.partEnded(n.rec.Name, now)
			sb.finishLeft(id)
		}
		sb.m.log.Warn("killing an attempt the master ended, which the agent still runs", "node", n.rec.Name,
			"task", id.String(), "why", why)
		return api.Command{Type: api.CommandKill, Task: id}, nil
	}
	// A fresh grace, also for a lost gang's part: whether, and when, its
	// first stop reached the agent is not known (lostgang.go).
	grace := poolGrace(sb.m.cfg, t.job.rec.Pool)
	h := sb.hold(key, t, gpus, grace, now)
	h.left = w != nil
	if h.left {
		why = "a part of a lost gang, asked to checkpoint at its loss; its end is recorded"
	}
	sb.m.log.Warn("asking an attempt the master ended, which the agent still runs, to checkpoint; "+
		"its GPUs and its task wait for its end", "node", n.rec.Name, "task", id.String(), "gpus", gpus,
		"grace", grace, "why", why)
	return h.stop(id, grace), nil
}

// hold holds key's GPUs gpus and task t's start from now until the
// stray ends, giving it grace (and strayMargin) before a kill.
func (sb *strayBook) hold(key strayKey, t *mtask, gpus []int, grace time.Duration, now time.Time) *strayHold {
	if sb.holds == nil {
		sb.holds = map[strayKey]*strayHold{}
	}
	h := &strayHold{t: t, gpus: gpus, until: now.Add(grace + strayMargin), sentAt: now}
	sb.holds[key] = h
	return h
}

// syncStrays follows node n's strays by a sync's running list: those
// it no longer lists have ended, and let go of their GPUs and tasks;
// those it lists get their stop again once stopResend has passed.
func (sb *strayBook) syncStrays(n *mnode, runs map[agent.TaskID]bool, now time.Time) {
	for key, h := range sb.holds {
		switch {
		case key.node != n.rec.Name:
		case !runs[key.id]:
			sb.releaseStray(key, "the agent no longer runs it")
		case now.Sub(h.sentAt) >= stopResend:
			h.sentAt = now
			sb.m.batches.send(n, h.stop(key.id, poolGrace(sb.m.cfg, h.t.job.rec.Pool)))
		}
	}
}

// checkStrays kills the strays whose grace (and strayMargin) has run
// out, or whose task no longer waits to resume (a user killed its job),
// and lets go of those whose node is no longer up (lost, left or
// deleted): what ran there is gone or out of reach.
func (sb *strayBook) checkStrays(now time.Time) {
	defer sb.checkLefts(now)
	for key, h := range sb.holds {
		n := sb.m.nodes[key.node]
		switch {
		case n == nil || !n.up():
			sb.releaseStray(key, "its node is no longer up")
		case h.killed:
		case !now.Before(h.until):
			sb.killStray(n, key, h, now, "it still runs past its grace")
		case h.t.rec.State != store.TaskQueued || h.t.job.rec.State.Terminal():
			sb.killStray(n, key, h, now, "its task no longer waits to resume")
		}
	}
}

// killStray sends stray h, asked to checkpoint, a kill, and holds its
// GPUs on until it has ended.
func (sb *strayBook) killStray(n *mnode, key strayKey, h *strayHold, now time.Time, why string) {
	h.killed, h.sentAt = true, now
	sb.m.log.Warn("killing an attempt the master ended that was asked to checkpoint", "node", key.node,
		"task", key.id.String(), "why", why)
	n.send(h.stop(key.id, 0))
}

// releaseStrays lets go of node n's strays that the registering agent
// does not list running (registeredRunning), and learns from the
// registration of the lost gangs' parts there (registeredLefts).
func (sb *strayBook) releaseStrays(n *mnode, runs, exited map[agent.TaskID]bool) {
	for key := range sb.holds {
		if key.node == n.rec.Name && !runs[key.id] {
			sb.releaseStray(key, "the agent no longer runs it")
		}
	}
	sb.registeredLefts(n, runs, exited)
}

// releaseStray lets go of the hold of key; a lost gang's part ends now,
// and the last of its attempt's parts to end has the store record it
// (finishLeft) before its hold is let go of.
func (sb *strayBook) releaseStray(key strayKey, why string) {
	if h := sb.holds[key]; h != nil && h.left {
		h.ended = true
		if w := sb.lefts[key.id]; w != nil {
			w.partEnded(key.node, sb.m.now())
		}
		if !sb.finishLeft(key.id) {
			return // kept: the next sync or check releases it again
		}
		sb.m.batches.later(func() { sb.dropStray(key, why) })
		return
	}
	sb.dropStray(key, why)
}

// dropStray lets go of the hold of key.
func (sb *strayBook) dropStray(key strayKey, why string) {
	if _, ok := sb.holds[key]; !ok {
		return
	}
	delete(sb.holds, key)
	sb.m.log.Info("an attempt the master ended has ended; its GPUs and task are free", "node", key.node,
		"task", key.id.String(), "why", why)
	sb.m.kick()
}

// strayHeld says which GPUs of node strays hold (nil for none).
func (sb *strayBook) strayHeld(node string) map[int]bool {
	return sb.strayHeldByNode()[node]
}

// strayHeldByNode says which GPUs strays hold, by node (nil for none):
// the snapshot takes them off their nodes' slots (heldOutside, outside.go).
// A lost gang's parts not heard of yet (leftWait) hold theirs too.
func (sb *strayBook) strayHeldByNode() map[string]map[int]bool {
	var out map[string]map[int]bool
	add := func(node string, gpus []int) {
		if out == nil {
			out = map[string]map[int]bool{}
		}
		held := out[node]
		if held == nil {
			held = map[int]bool{}
			out[node] = held
		}
		for _, g := range gpus {
			held[g] = true
		}
	}
	for key, h := range sb.holds {
		add(key.node, h.gpus)
	}
	_, unheard := sb.waiting()
	for node, gpus := range unheard {
		add(node, gpus)
	}
	return out
}

// strayWaits says whether task t waits for a stray of it to end, or to
// hear of a lost gang's part of it (leftWait).
func (sb *strayBook) strayWaits(t *mtask) bool {
	for _, h := range sb.holds {
		if h.t == t {
			return true
		}
	}
	ts, _ := sb.waiting()
	return ts[t]
}

// strayTasks counts, by job, the queued tasks that wait for a stray to
// end: they are not waiting to the scheduler. nil when there are none.
func (sb *strayBook) strayTasks() map[*mjob]int {
	unheard, _ := sb.waiting()
	if len(sb.holds) == 0 && len(unheard) == 0 {
		return nil
	}
	seen := map[*mtask]bool{}
	out := map[*mjob]int{}
	count := func(t *mtask) {
		if !seen[t] && t.rec.State == store.TaskQueued {
			seen[t] = true
			out[t.job]++
		}
	}
	for _, h := range sb.holds {
		count(h.t)
	}
	for t := range unheard {
		count(t)
	}
	return out
}
