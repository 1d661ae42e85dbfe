package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// When the parts of a lost gang left running on nodes up have ended
// (lostgang.go), across restarts of the master. The master follows each
// such attempt by a leftWait: its parts held (holdLeft, or held again at
// a registration: stray) and the nodes whose part's end it does not know
// yet. A restarted master makes one for each lost attempt whose task
// waits to resume and whose end has no left_ended event (restoreLefts),
// every node of it up but not registered yet; it learns each part's end
// at that node's registration (registeredLefts: still running, it is
// held again; exited, its exit report to come, it ended at the exit the
// report gives; neither, it ended while the master was down, when is not
// known, so at that registration: when the master learnt it), or at the
// node's loss, leave or deletion (checkLefts: at that loss). The end the
// store records is the last of those ends.

// leftWait is an attempt of task t ended lost at ended whose parts on
// nodes still up were asked to checkpoint: at is the last end of a part
// known so far (ended before any), on node last; nodes are the nodes
// whose part's end is not known yet, and which the master does not hold
// either, their GPUs in gpus, held as a stray's until then, and t's
// start too (strayBook.waiting); writing is the batch whose store write
// records the end (nil when none is under way).
type leftWait struct {
	t       *mtask
	ended   time.Time
	at      time.Time
	last    string
	nodes   map[string]leftNode
	gpus    map[string][]int
	writing *batch
}

// leftNode is what the master knows of a part on a node of a leftWait.
type leftNode int

const (
	// leftUnheard: the node's agent has not registered with this master
	// since the loss, or since the master started.
	leftUnheard leftNode = iota
	// leftExited: its registration lists the part exited (api.Register's
	// Exited), the exit report, with the time of the exit, to come.
	leftExited
)

// partEnded notes that the part on node ended at at (never before the
// attempt's end).
func (w *leftWait) partEnded(node string, at time.Time) {
	w.forget(node)
	if at.Before(w.ended) {
		at = w.ended
	}
	if !at.Before(w.at) {
		w.at, w.last = at, node
	}
}

// waitLeft starts following attempt id of task t, ended lost at ended,
// whose parts unheard are not known (their agents have not registered
// with this master). Callers hold mu.
func (sb *strayBook) waitLeft(t *mtask, id agent.TaskID, ended time.Time, unheard []*mpart) *leftWait {
	if sb.lefts == nil {
		sb.lefts = map[agent.TaskID]*leftWait{}
	}
	w := &leftWait{t: t, ended: ended, at: ended, nodes: map[string]leftNode{}, gpus: map[string][]int{}}
	for _, p := range unheard {
		w.wait(p.node, p.gpus)
	}
	sb.lefts[id] = w
	return w
}

// wait has w wait to hear of its part on node, on GPUs gpus.
func (w *leftWait) wait(node string, gpus []store.GPURef) {
	w.nodes[node] = leftUnheard
	w.gpus[node] = nil
	for _, g := range gpus {
		w.gpus[node] = append(w.gpus[node], g.Index)
	}
}

// leftOf is the leftWait of attempt id that waits to hear of its part on
// node, nil when none does; it forgets the node, which the caller
// settles (a hold, or partEnded).
func (sb *strayBook) leftOf(id agent.TaskID, node string) *leftWait {
	w := sb.lefts[id]
	if w == nil {
		return nil
	}
	if _, ok := w.nodes[node]; !ok {
		return nil
	}
	w.forget(node)
	return w
}

// forget stops waiting to hear of the part on node.
func (w *leftWait) forget(node string) {
	delete(w.nodes, node)
	delete(w.gpus, node)
}

// waiting says which tasks wait to hear of a lost gang's part, and which
// GPUs those parts may hold, by node, beside the holds (stray.go).
func (sb *strayBook) waiting() (map[*mtask]bool, map[string][]int) {
	var ts map[*mtask]bool
	var gpus map[string][]int
	for _, w := range sb.lefts {
		if len(w.nodes) == 0 {
			continue
		}
		if ts == nil {
			ts, gpus = map[*mtask]bool{}, map[string][]int{}
		}
		ts[w.t] = true
		for n, gs := range w.gpus {
			gpus[n] = append(gpus[n], gs...)
		}
	}
	return ts, gpus
}

// registeredLefts settles, at node n's registration, the parts of the
// attempts followed (leftWait) that n's agent was not heard of on: one
// it runs stays, for stray to hold again; one it lists exited waits for
// its exit report (leftExit); one it lists neither ended while the
// master did not hear from the agent, when is not known: at this
// registration. Callers hold mu.
func (sb *strayBook) registeredLefts(n *mnode, runs, exited map[agent.TaskID]bool) {
	for _, id := range slices.SortedFunc(maps.Keys(sb.lefts), cmpTaskID) {
		w := sb.lefts[id]
		if _, ok := w.nodes[n.rec.Name]; !ok || runs[id] {
			continue
		}
		if exited[id] {
			w.nodes[n.rec.Name] = leftExited
			continue
		}
		w.partEnded(n.rec.Name, sb.m.now())
		sb.finishLeft(id)
	}
}

// leftExit takes node n's exit report r of an attempt the master ended,
// whose part there it waits for (leftExited), as that part's end, at the
// exit it reports. Callers hold mu.
func (sb *strayBook) leftExit(n *mnode, r api.Report) {
	w := sb.lefts[r.Task]
	if w == nil || r.Event != api.EventExited || w.nodes[n.rec.Name] != leftExited {
		return
	}
	at := r.At
	if at.IsZero() || at.After(sb.m.now()) {
		at = sb.m.now()
	}
	w.partEnded(n.rec.Name, at)
	sb.finishLeft(r.Task)
}

// checkLefts settles the parts of the attempts followed whose nodes are
// no longer up (lost, left or deleted): what ran there is gone or out of
// reach, from the node's loss; and records the end of those that wait
// for nothing more (a store write failed before). Callers hold mu.
func (sb *strayBook) checkLefts(now time.Time) {
	for _, id := range slices.SortedFunc(maps.Keys(sb.lefts), cmpTaskID) {
		w := sb.lefts[id]
		for _, name := range slices.Sorted(maps.Keys(w.nodes)) {
			n := sb.m.nodes[name]
			switch {
			case n == nil:
				w.partEnded(name, now)
			case !n.up():
				w.partEnded(name, cmp0(n.lostAt, now))
			}
		}
		sb.finishLeft(id)
	}
}

// cmp0 is t, or or when t is zero.
func cmp0(t, or time.Time) time.Time {
	if t.IsZero() {
		return or
	}
	return t
}

func cmpTaskID(a, b agent.TaskID) int {
	if a.JobID != b.JobID {
		ja, _ := strconv.ParseInt(a.JobID, 10, 64)
		jb, _ := strconv.ParseInt(b.JobID, 10, 64)
		return int(ja - jb)
	}
	if a.TaskIndex != b.TaskIndex {
		return a.TaskIndex - b.TaskIndex
	}
	return a.Attempt - b.Attempt
}

// leftHeld says whether a part of attempt id is held and has not ended.
func (sb *strayBook) leftHeld(id agent.TaskID) bool {
	for k, h := range sb.holds {
		if k.id == id && h.left && !h.ended {
			return true
		}
	}
	return false
}

// finishLeft records the end of attempt id's parts once none is held
// running and none is unknown; it reports whether their holds may be
// let go of: not when the store failed (the next sync or check tries
// again). Callers hold mu.
func (sb *strayBook) finishLeft(id agent.TaskID) bool {
	w := sb.lefts[id]
	if w == nil {
		return true
	}
	bt := sb.m.batches.bt
	if len(w.nodes) > 0 || sb.leftHeld(id) || bt != nil && w.writing == bt {
		return true
	}
	if !sb.leftEnded(id, w) {
		return false
	}
	w.writing = bt
	sb.m.batches.later(func() {
		if sb.lefts[id] == w {
			delete(sb.lefts, id)
		}
	})
	return true
}

// leftEnded records that the parts of attempt id left running on nodes
// up have ended, at w.at, their last on w.last (store.NoteLeftEnded),
// and reports whether that is settled: not when the store failed. An
// attempt the store does not have ended lost, or has no more, is let go
// of with a warning. Callers hold mu.
func (sb *strayBook) leftEnded(id agent.TaskID, w *leftWait) bool {
	jid, err := strconv.ParseInt(id.JobID, 10, 64)
	if err != nil {
		return true
	}
	note := "its parts on nodes still up, asked to checkpoint at its loss, have ended (the last on node " + w.last + ")"
	err = sb.m.batches.w().NoteLeftEnded(context.Background(), jid, id.TaskIndex, id.Attempt, w.at, note)
	switch {
	case errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound):
		sb.m.log.Warn("end of a lost gang's parts not recorded", "task", id.String(), "err", err)
	case err != nil:
		sb.m.log.Error("recording the end of a lost gang's parts", "task", id.String(), "err", err)
		return false
	}
	return true
}

// restoreLefts follows again (leftWait) each lost attempt whose parts on
// nodes still up were asked to checkpoint (the rule of endAttempt:
// lifecycle.CheckpointsOnLoss, its task waiting to resume from it) and
// whose end the store has not recorded (no left_ended event): those
// parts may still run, or have ended while no master heard of them.
// Each node of its placement not lost or left while it ran and up now
// is waited for; one down now ended the part at its loss (restoreLosses),
// and an attempt that waits for no node has its end recorded at once.
func (r *restorer) restoreLefts(ctx context.Context) error {
	m := r.m
	evs, err := m.st.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		return fmt.Errorf("read the node history for the lost gangs' parts: %w", err)
	}
	losses := map[string][]time.Time{}
	for _, e := range evs {
		if e.To == store.NodeLost || e.To == store.NodeLeft {
			losses[e.Node] = append(losses[e.Node], e.At)
		}
	}
	for _, j := range m.order {
		if !j.rec.Preemptible || !slices.ContainsFunc(j.tasks, waitsAfterAttempt) {
			continue
		}
		if err := r.restoreLeftsOf(ctx, j, losses); err != nil {
			return fmt.Errorf("job %d: restore its lost gangs' parts: %w", j.rec.ID, err)
		}
	}
	return nil
}

// waitsAfterAttempt says whether t waits to start again after an attempt.
func waitsAfterAttempt(t *mtask) bool {
	return t.att == nil && t.rec.State == store.TaskQueued && t.rec.Attempt > 0
}

// restoreLeftsOf is restoreLefts for job j, with the times of each
// node's losses and leaves. The job's events are read only for the
// attempts that may be such (ended lost on some node that stayed up).
func (r *restorer) restoreLeftsOf(ctx context.Context, j *mjob, losses map[string][]time.Time) error {
	m := r.m
	atts, err := m.st.Attempts(ctx, store.AttemptFilter{JobID: j.rec.ID})
	if err != nil {
		return err
	}
	type cand struct {
		a  store.Attempt
		up []store.Placement
	}
	var cands []cand
	var since time.Time
	for _, a := range atts {
		if a.Index < 0 || a.Index >= len(j.tasks) || a.EndState != store.AttemptLost {
			continue
		}
		if t := j.tasks[a.Index]; !waitsAfterAttempt(t) || t.rec.Attempt != a.Number {
			continue
		}
		c := cand{a: a}
		for _, p := range a.Placement {
			if !slices.ContainsFunc(losses[p.Node], func(at time.Time) bool {
				return !at.Before(a.StartedAt) && !at.After(a.EndedAt)
			}) {
				c.up = append(c.up, p)
			}
		}
		if len(c.up) > 0 {
			cands = append(cands, c)
			if since.IsZero() || a.EndedAt.Before(since) {
				since = a.EndedAt
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	evs, err := m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID, Since: since})
	if err != nil {
		return err
	}
	for _, c := range cands {
		if !leftAsked(c.a, evs) {
			continue
		}
		id := agent.TaskID{JobID: j.idString(), TaskIndex: c.a.Index, Attempt: c.a.Number}
		w := m.agents.strays.waitLeft(j.tasks[c.a.Index], id, c.a.EndedAt, nil)
		for _, p := range c.up {
			if n := m.nodes[p.Node]; n != nil && n.up() {
				w.wait(p.Node, p.GPUs)
				continue
			}
			at := c.a.EndedAt // its node deleted since: when is not at hand
			if n := m.nodes[p.Node]; n != nil {
				at = cmp0(n.lostAt, at) // its node went down since: out of reach from then
			}
			w.partEnded(p.Node, at)
		}
		m.agents.strays.finishLeft(id)
	}
	return nil
}

// leftAsked says, by job events evs, whether lost attempt a's end asked
// its parts on nodes up to checkpoint: the end requeued its task, which
// ran, on no agent's word that it does not run it (endAttempt), and no
// left_ended event follows.
func leftAsked(a store.Attempt, evs []store.Event) bool {
	asked := false
	for _, e := range evs {
		if e.Index != a.Index || e.Attempt != a.Number {
			continue
		}
		switch {
		case e.Cause == store.CauseLeftEnded:
			return false
		case e.At.Equal(a.EndedAt) && e.To == string(store.TaskQueued) && e.From != string(store.TaskQueued):
			asked = e.Cause != store.CauseNotRun && (!a.RunningAt.IsZero() || e.PartRan)
		}
	}
	return asked
}
