package master

import (
	"github.com/allot-sched/allot/store"
)

// The GPU-seconds metric and a late exit. allot_gpu_seconds_total, a
// counter, counts the usage records the master stores (charged); it
// cannot go down, so it must not count what a late exit (lateexit.go)
// or a late end noted on a lost attempt (lostnote.go) may cut from a
// record. What they cut is the record that ends an attempt lost, which
// covers the attempt from its agent's last word (the periodic records
// stop there: usageexit.go) to the master's end of it: the one stretch that no agent vouched for. That
// record is stored, and charged to the fair share, as any other; the
// metric holds it back (a lostTail) until its end is final:
//
//   - a late exit amends the attempt, or a late end is noted on it: the
//     metric counts the record as the exit cut it (what the store now
//     has of the attempt, less what it had already counted);
//   - every lost node of the attempt is heard from again (a sync after
//     the end, whose reports the master applied before the next tick)
//     with no such exit, or left the configuration: the metric counts
//     it in full.
//
// So the metric agrees with the stored usage once the lost nodes are
// back. A tail whose node never comes back stays out of the metric
// (`allot usage` and the fair share have it), and a master restart
// forgets the held tails with the rest of the counter, which counts
// from the master's start. A late exit heard after its node's first sync
// back (an agent that reports it later), or of an attempt whose lost
// record a previous master stored, finds no held tail: the metric keeps
// what the exit cut then.

// lostTail is a usage record held back from the metric: the end record
// of an attempt failed as lost, with its lost nodes' sync counts when it
// ended.
type lostTail struct {
	u     store.Usage
	syncs map[string]int64
}

// tailBook holds the lost tails back from the GPU-seconds metric until
// their ends are final. A part of Master (its tails field), over the
// metric it counts them into; guarded by Master.mu.
type tailBook struct {
	held   map[attemptKey]*lostTail
	metric *metrics
}

// heldTail is the lost tail that op's record is, nil when op does not
// end an attempt lost (its task failed, or requeued: a late end of it
// is noted, lostnote.go), or no node of it is down.
// Callers hold mu, before setTask closes op's attempt.
func heldTail(nodes map[string]*mnode, op *taskOp) *lostTail {
	if op.usage == nil || op.tr.End == nil || op.tr.End.State != store.AttemptLost || op.t.att == nil {
		return nil
	}
	syncs := map[string]int64{}
	for _, p := range op.t.att.parts {
		if n := nodes[p.node]; n != nil && !n.up() {
			syncs[p.node] = n.syncs
		}
	}
	if len(syncs) == 0 {
		return nil
	}
	return &lostTail{u: *op.usage, syncs: syncs}
}

// hold keeps a lost tail back from the metric; its record is charged to
// the fair share as any other (the caller's).
func (b *tailBook) hold(tail *lostTail) {
	u := tail.u
	if b.held == nil {
		b.held = map[attemptKey]*lostTail{}
	}
	b.held[attemptKey{u.JobID, u.Index, u.Attempt}] = tail
}

// count adds gpuSeconds of a lost tail's record to the metric.
func (b *tailBook) count(u store.Usage, gpuSeconds float64) {
	if gpuSeconds > 0 {
		b.metric.chargeGPU(u.Pool, u.Project, u.User, gpuSeconds)
	}
}

// settle counts in full the held tails whose lost nodes have all been
// heard from since, or left.
func (b *tailBook) settle(nodes map[string]*mnode) {
	for k, tail := range b.held {
		final := true
		for name, syncs := range tail.syncs {
			if n := nodes[name]; n != nil && n.syncs <= syncs {
				final = false
			}
		}
		if final {
			delete(b.held, k)
			b.count(tail.u, tail.u.GPUSeconds)
		}
	}
}

// amended counts the held tail of attempt k, which a late exit cut
// (trims), as the store now has it: what the exit left of the attempt's
// records less what the metric counted of them before, which is the
// tail less every cut.
func (b *tailBook) amended(k attemptKey, trims []store.UsageTrim) {
	tail := b.held[k]
	if tail == nil {
		return
	}
	delete(b.held, k)
	left := tail.u.GPUSeconds
	for _, tr := range trims {
		left -= tr.Before.GPUSeconds - tr.After.GPUSeconds
	}
	b.count(tail.u, left)
}
