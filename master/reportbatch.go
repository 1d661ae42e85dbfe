package master

import (
	"context"
	"time"

	"github.com/allot-sched/allot/api"
)

// syncReq is a sync waiting for its reports to be stored. The first sync
// to take mu stores the reports of every sync queued by then in one batch
// (one transaction, one commit): while a commit is in flight, the syncs
// that arrive queue up and share the next one.
type syncReq struct {
	name string
	s    api.Sync
	// Set by storeSyncs, under mu.
	done  bool
	acked int64
	err   error
}

// sync handles one agent sync: it stores the reports, then answers with
// the node's commands, holding the request while there are none, on st
// (synchold.go), which sends heartbeats during the hold when the agent
// asked for them. Every error but the node's loss during the hold is
// decided before it: st may have sent the headers by then.
func (ag *agents) sync(ctx context.Context, name string, s api.Sync, st *syncStream) (api.SyncReply, error) {
	req := &syncReq{name: name, s: s}
	between := func() {}
	if s.Leaving || s.Final {
		// A goodbye drains or ends the node: between settlings
		// (betweenSettlings), from before it is queued until its
		// reports are stored, whichever sync stores them; not while it
		// waits for commands.
		between = ag.m.betweenSettlings()
	}
	ag.syncMu.Lock()
	ag.syncQ = append(ag.syncQ, req)
	ag.syncMu.Unlock()
	ag.m.lock()
	if !req.done {
		ag.storeSyncs(ctx)
	}
	between() // with mu held: the next pass takes mu after passMu
	n := ag.m.nodes[name]
	if req.err == nil && (n == nil || !n.registered) {
		req.err = errUnknownNode // lost since its reports were stored
	}
	if req.err != nil {
		ag.m.unlock()
		return api.SyncReply{}, req.err
	}
	wait := min(time.Duration(s.WaitS)*time.Second, ag.m.opt.SyncWait, agentTimeout(ag.m.cfg)/2)
	if len(n.commands) == 0 && wait > 0 && !ag.placementDue(n, s.PlacementGen) {
		wake := n.wake
		n.polling++
		if st.asked {
			st.every = syncHeartbeat(agentTimeout(ag.m.cfg))
		}
		ag.m.unlock()
		st.hold(ctx, wait, wake)
		ag.m.lock()
		n.polling--
		n.lastSeen = ag.m.now()
		n.seen = n.lastSeen
		ag.m.pub.markNode(n)
	}
	defer ag.m.unlock()
	if !n.registered {
		return api.SyncReply{}, errUnknownNode
	}
	reply := api.SyncReply{Acked: req.acked, Commands: ag.take(n), Fence: ag.fence(n), TimeLimits: ag.limits.timeLimitsFor(n)}
	reply.PlacementGen, reply.Placement = ag.placementNews(n, s.PlacementGen)
	return reply, nil
}

// storeSyncs stores the reports of every queued sync in one batch and
// marks them done. If the batch fails, it is tried again one sync at a
// time, so that one sync whose reports cannot be stored (other than for a
// store outage, which fails them all anyway) does not fail the others
// every time they retry. A failed sync has nothing acknowledged, nothing
// changed in the mirror and no command queued. Callers hold mu.
func (ag *agents) storeSyncs(ctx context.Context) {
	ag.syncMu.Lock()
	reqs := ag.syncQ
	ag.syncQ = nil
	ag.syncMu.Unlock()
	// Not the client's context: the batch stores other syncs too.
	ctx = context.WithoutCancel(ctx)
	ag.m.metric.syncBatch.Observe(float64(len(reqs)))
	if err := ag.storeBatch(ctx, reqs); err != nil && len(reqs) > 1 {
		ag.m.metric.syncBatchRetries.Inc()
		for _, q := range reqs {
			ag.storeBatch(ctx, []*syncReq{q})
		}
	}
	for _, q := range reqs {
		q.done = true
	}
}

// storeBatch stores the reports of reqs in one batch and sets each one's
// outcome; it returns the batch's error, which every req then carries.
func (ag *agents) storeBatch(ctx context.Context, reqs []*syncReq) error {
	for _, q := range reqs {
		// Before the batch, which a failing store refuses: its reports
		// are on their way all the same (reportsettle.go).
		ag.m.reports.note(q.name, q.s)
	}
	err := ag.m.batches.inBatch(ctx, func() error {
		for _, q := range reqs {
			n := ag.m.nodes[q.name]
			if n == nil || !n.registered {
				q.acked, q.err = 0, errUnknownNode
				continue
			}
			q.acked, q.err = ag.syncReports(ctx, n, q.s)
			if batchFatal(q.err) {
				return q.err
			}
		}
		return nil
	})
	if err != nil {
		for _, q := range reqs {
			q.acked, q.err = 0, err
		}
	}
	return err
}
