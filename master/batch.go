package master

import (
	"context"
	"errors"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// batch is one store transaction that several changes of the mirror share:
// the reports of every sync waiting for mu, or the transitions of one
// scheduling pass. While it is open (batcher.bt != nil) the mirror changes
// as usual, but every store write goes into its transaction (batcher.w),
// and every act — a command for an agent, a usage charge, a searcher's
// verdict — waits in after until the transaction commits. If the commit
// fails, the jobs and nodes that the batch touched are put back as they
// were (undo) and the acts are dropped: nothing is acted on that is not
// durable.
type batch struct {
	tx    store.Tx
	jobs  map[*mjob]*jobSave
	nodes map[*mnode]*nodeSave
	gone  int // m.goneJobs when the batch began
	after []func()
}

// jobSave is a job of the mirror as it was before a batch changed it.
type jobSave struct {
	job    mjob
	inMap  bool
	tasks  []mtask
	atts   []mattempt // by task; zero where the task had no attempt
	parts  [][]mpart  // by task, the parts of its attempt
	nextPs [][]mpart  // by task, the parts of its reservation
}

// nodeSave is what a batch may change of a node: a sync, or its loss.
// The time it was seen stays (true whatever the store says), and the
// commands a batch sends it are deferred; a loss clears them.
type nodeSave struct {
	acked      int64
	syncs      int64 // counted again when a failed batch is retried
	savedBeat  time.Time
	reconcile  map[agent.TaskID]bool // replaced, never changed in place
	rec        store.Node
	registered bool
	leaving    bool
	commands   []api.Command
	lostAt     time.Time
}

// batcher opens, commits and undoes the batches: the transitions write
// through m.batches.w, defer their acts with m.batches.later and
// m.batches.send, and save what they change with m.batches.touch and
// m.batches.touchNode. It owns the open batch; m is the Master that holds
// it, whose store it writes to and whose mirror a failed batch puts back.
type batcher struct {
	m *Master
	// bt is the open batch, nil outside one. Guarded by Master.mu.
	bt *batch
}

// w is where a store write goes: the open batch's transaction, or the store
// (a transaction of its own). Callers hold mu.
func (b *batcher) w() store.Tx {
	if b.bt != nil {
		return b.bt.tx
	}
	return b.m.st
}

// later runs fn once the open batch commits, or at once without a batch.
// Callers hold mu.
func (b *batcher) later(fn func()) {
	if b.bt != nil {
		b.bt.after = append(b.bt.after, fn)
		return
	}
	fn()
}

// send queues a command for a node once the transition it carries out is
// durable. Callers hold mu.
func (b *batcher) send(n *mnode, c api.Command) {
	b.later(func() { n.send(c) })
}

// inBatch runs fn with a batch open, commits it, and then runs the acts it
// deferred. When fn fails, or the commit does, the mirror is put back and
// the error returned. ctx should not be a client's: the batch serves
// others too. Callers hold mu, which stays held across the commit (see
// doc.go, "Batches").
func (b *batcher) inBatch(ctx context.Context, fn func() error) error {
	if b.bt != nil {
		return fn() // already inside one: share it
	}
	bt := &batch{jobs: map[*mjob]*jobSave{}, nodes: map[*mnode]*nodeSave{}, gone: b.m.goneJobs}
	err := b.m.st.Update(ctx, func(tx store.Tx) error {
		bt.tx = tx
		b.bt = bt
		defer func() { b.bt = nil }()
		return fn()
	})
	b.bt = nil
	if err != nil {
		b.undo(bt)
		return err
	}
	for _, fn := range bt.after {
		fn()
	}
	return nil
}

// touch saves a job before the open batch first changes it, and marks it
// for the read view, batch or not. Callers hold mu.
func (b *batcher) touch(j *mjob) {
	b.m.pub.markJob(j) // first, so that the save and its undo keep the mark
	if b.bt == nil || b.bt.jobs[j] != nil {
		return
	}
	s := &jobSave{job: *j, inMap: b.m.jobs[j.rec.ID] == j, tasks: make([]mtask, len(j.tasks)),
		atts: make([]mattempt, len(j.tasks)), parts: make([][]mpart, len(j.tasks)), nextPs: make([][]mpart, len(j.tasks))}
	for i, t := range j.tasks {
		s.tasks[i] = *t
		if t.att != nil {
			s.atts[i] = *t.att
			s.parts[i] = copyParts(t.att.parts)
		}
		s.nextPs[i] = copyParts(t.next)
	}
	b.bt.jobs[j] = s
}

// touchNode saves what a batch may change of a node before it first
// does, and marks it for the read view. Callers hold mu.
func (b *batcher) touchNode(n *mnode) {
	b.m.pub.markNode(n)
	if b.bt == nil || b.bt.nodes[n] != nil {
		return
	}
	b.bt.nodes[n] = &nodeSave{acked: n.acked, syncs: n.syncs, savedBeat: n.savedBeat, reconcile: n.reconcile,
		rec: n.rec, registered: n.registered, leaving: n.leaving, commands: n.commands,
		lostAt: n.lostAt}
}

func copyParts(ps []*mpart) []mpart {
	if ps == nil {
		return nil
	}
	out := make([]mpart, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// undo puts back the jobs and nodes a failed batch touched: first every
// GPU their tasks hold now is released, then the saved state comes back,
// then its GPUs are held again, so that a GPU freed and taken within the
// batch ends with its old holder. Callers hold mu.
func (b *batcher) undo(bt *batch) {
	m := b.m
	for j := range bt.jobs {
		for _, t := range j.tasks {
			if t.att != nil {
				m.release(t)
			}
			if t.next != nil {
				m.releaseParts(t, t.next)
			}
		}
	}
	for j, s := range bt.jobs {
		*j = s.job
		for i, t := range j.tasks {
			*t = s.tasks[i]
			if t.att != nil {
				*t.att = s.atts[i]
				for k, p := range t.att.parts {
					*p = s.parts[i][k]
				}
			}
			for k, p := range t.next {
				*p = s.nextPs[i][k]
			}
		}
		if s.inMap {
			m.jobs[j.rec.ID] = j
		}
	}
	for j := range bt.jobs {
		for _, t := range j.tasks {
			if t.att != nil {
				m.hold(t)
			}
			if t.next != nil {
				m.holdParts(t, t.next)
			}
		}
	}
	m.goneJobs = bt.gone
	for n, s := range bt.nodes {
		n.acked, n.syncs, n.savedBeat, n.reconcile = s.acked, s.syncs, s.savedBeat, s.reconcile
		n.rec, n.registered, n.leaving, n.commands, n.lostAt = s.rec, s.registered, s.leaving, s.commands, s.lostAt
	}
}

// batchFatal reports whether an error within a batch must fail the whole
// batch: anything but a refusal of one report (a node reporting on another
// node's task) or a compare-and-set that found another state, neither of
// which writes anything.
func batchFatal(err error) bool {
	var ae *auth.Error
	return err != nil && !errors.As(err, &ae) && !errors.Is(err, store.ErrConflict)
}
