package agentd

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// maxReportsPerSync bounds one sync's body; the rest follow at once.
const maxReportsPerSync = 1000

// syncOnce sends the unacknowledged reports and the running attempts
// (and, at shutdown, that the node leaves), and handles the reply; it
// returns how many commands came. A 404 marks the node unregistered.
func (a *Agent) syncOnce(ctx context.Context, waitS int) (int, error) {
	a.mu.Lock()
	gen := a.gen
	n := min(len(a.reports), maxReportsPerSync)
	req := api.Sync{
		Reports:  a.caps.forMasterLocked(a.limiter().forMasterLocked(a.reports[:n])),
		Running:  a.snapshotRunning(),
		Exited:   a.snapshotExited(),
		Starting: a.startingLocked(),
		WaitS:    waitS,
		Leaving:  a.leaving,
		// The placement heard: the master repeats a move until a sync
		// says it was heard, so that a lost reply does not lose it.
		PlacementGen: a.placeGen,
	}
	// Final: the agent runs nothing and every report it has is in this
	// sync; once it is stored, the agent has nothing more to say.
	req.Final = a.leaving && len(a.tasks) == 0 && n == len(a.reports)
	hold := a.fence.hold(waitS) // the longest the master holds the poll
	a.mu.Unlock()
	var reply api.SyncReply
	path := "/agents/" + url.PathEscape(a.cfg.Name) + "/sync"
	var heard func(time.Time)
	if waitS > 0 {
		// The master's heartbeats while it holds the poll are contact,
		// none later than the hold's end: bytes a middlebox held back
		// tell of no later moment.
		end := time.Now().Add(hold)
		heard = func(at time.Time) {
			if at.After(end) {
				at = end
			}
			a.fencer().heartbeat(at)
		}
	}
	err := a.conn.postHeard(ctx, path, a.cfg.RequestTimeout+time.Duration(waitS)*time.Second, req, &reply, heard)
	if err == nil && reply.Status != 0 {
		// The master failed the sync after it sent its headers.
		err = &statusError{path: path, status: reply.Status, msg: reply.Error}
	}
	if isStatus(err, http.StatusNotFound) {
		a.mu.Lock()
		if lease, ok := nodeLease(err); ok {
			// A restarted master: it holds the node for lease more.
			leasedLocked(a, time.Now(), lease)
		}
		if a.gen == gen && a.registered {
			a.registered = false
			a.broadcast()
			a.log.Warn("the master does not know this node (it restarted, or lost the node); registering again")
		}
		a.mu.Unlock()
	}
	(disowner{a}).refusedRequest(err)
	if isStoreOutage(err) {
		// The master is up and gives every node a fresh lease once its
		// store is back: contact for the fence, whose terms stand.
		a.mu.Lock()
		a.fencer().heardLocked(time.Now(), a.fence.f)
		a.mu.Unlock()
	}
	if err != nil {
		return 0, err
	}
	a.mu.Lock()
	a.fencer().heardLocked(time.Now(), reply.Fence)
	a.limiter().heardLimitsLocked(time.Now(), reply.TimeLimits, false)
	a.mu.Unlock()
	a.ack(reply.Acked)
	a.placed(ctx, gen, reply)
	a.execute(reply.Commands)
	return len(reply.Commands), nil
}

// snapshotExited lists the attempts whose processes have exited but whose
// exit report waits for their output to be delivered (watch): the master
// then asks no kill of them, as when its store was down and their late
// metrics have a searcher stop them (trial r R3). The caller holds mu.
func (a *Agent) snapshotExited() []agent.TaskID {
	var ids []agent.TaskID
	for id, att := range a.tasks {
		if att.exited {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return lessID(ids[i], ids[j]) })
	return ids
}

// ack drops the reports the master has stored.
func (a *Agent) ack(acked int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if acked <= a.acked {
		return
	}
	a.acked = acked
	i, exits := 0, false
	for i < len(a.reports) && a.reports[i].Seq <= acked {
		exits = exits || a.reports[i].Event == api.EventExited
		i++
	}
	a.reports = append(a.reports[:0], a.reports[i:]...)
	if exits {
		a.journal.save(a.reports)
	}
	a.broadcast()
}

// syncLoop keeps the node registered and long-polls the master until ctx
// is done. A failure is followed by a backoff and a sync that does not
// wait, so that a returning master hears from the node at once. It
// returns an error only when the node's first registration fails for
// what it is (registrar.fatal): no retry can help, and no task runs yet.
func (a *Agent) syncLoop(ctx context.Context) error {
	bo := a.newBackoff(1)
	failures := 0
	reg := &registrar{a: a}
	for ctx.Err() == nil {
		a.mu.Lock()
		registered, waitS := a.registered, a.waitS
		a.mu.Unlock()
		var err error
		pace := false
		start := time.Now()
		if !registered {
			err = reg.register(ctx)
			if err != nil && (disowner{a}).disowned() {
				// Told once (afterRefusal); the tries that are left
				// come seldom, as each is a refusal in the audit log.
				if !(disowner{a}).awaitRejoin(ctx) {
					if ctx.Err() != nil {
						return nil
					}
					return (disowner{a}).errDisowned()
				}
				continue
			}
			if ferr := reg.fatal(err); ferr != nil {
				return ferr
			}
		} else {
			if failures > 0 {
				waitS = 0
			}
			var cmds int
			cmds, err = a.syncOnce(ctx, waitS)
			pace = cmds == 0
		}
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			if failures > 0 {
				a.log.Info("master reachable again", "failures", failures)
			}
			failures, reg.lastWarned = 0, ""
			bo.reset()
			if pace {
				// A master that answers a long poll at once with nothing
				// must not turn it into a busy loop.
				sleep(ctx, time.Until(start.Add(a.cfg.MinPollInterval)))
			}
			continue
		}
		if isStatus(err, http.StatusNotFound) && registered {
			// The master answers, and has forgotten the node (it
			// restarted): register at once, and start the backoff over,
			// so that a registration it refuses for the moment (its store
			// not ready yet) is retried soon, not after the long delays
			// of the outage before.
			if failures > 0 {
				a.log.Info("master reachable again", "failures", failures)
			}
			failures = 0
			bo.reset()
			continue
		}
		failures++
		if registered {
			a.logFailure(ctx, failures, err)
		} else {
			reg.logFailure(ctx, err)
		}
		now := time.Now()
		awaitRetry(ctx, a, fenceRetryCap(a, retryDelay(bo, err, a.retryLimit(now)), now), registered)
	}
	return nil
}

// awaitRetry waits d before the sync loop's next try, or less: until
// another loop hears from the master, whose answer says it is back. A
// 404 there (the report loop's, as exit reports go out first after an
// outage) unregisters the node, which only this loop registers again;
// a success there is contact. Either way the loop tries at once rather
// than sleep out the delay its failures built up, which could outlast
// the fence. registered is whether the node was registered at the try.
func awaitRetry(ctx context.Context, a *Agent, d time.Duration, registered bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	a.mu.Lock()
	contact := a.fence.contact
	a.mu.Unlock()
	for {
		a.mu.Lock()
		heard := a.registered != registered || a.fence.contact.After(contact)
		ch := a.changed
		a.mu.Unlock()
		if heard {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			return
		case <-ch:
		}
	}
}

// reachableRetryMax caps the delay between tries while the master
// answers (with an error status): it is up, and the failure is likely
// brief, such as its store starting.
var reachableRetryMax = 5 * time.Second // a variable for tests

// outageRetryMax caps the delay between tries while the master has been
// out of reach for less than its agent timeout (retryLimit). A variable
// for tests.
var outageRetryMax = time.Second

// defaultAgentTimeout is the master's default agent_timeout, which
// retryLimit assumes of a master that has not said its own (one that
// does not fence, or has not answered yet).
const defaultAgentTimeout = 30 * time.Second

// retryDelay is the delay before the next try after err: the backoff's,
// bounded by limit (retryLimit) and by reachableRetryMax when the master
// answered, so that every loop (syncs, logs) is back within seconds of
// an outage's end instead of sleeping out the long delays the outage
// built up. The bound keeps the backoff's jitter (backoff.nextWithin).
func retryDelay(bo *backoff, err error, limit time.Duration) time.Duration {
	if answered(err) {
		limit = min(limit, reachableRetryMax)
	}
	return bo.nextWithin(limit)
}

// retryLimit is the longest delay before a try at the master at now:
// outageRetryMax while the master was last heard less than its agent
// timeout ago (the one its last reply said, else the default), so that
// a master restarted within that time hears from the node within about
// a second, not after the delays of up to BackoffMax that the failures
// built up (a trial's agents came back up to 4.3 s after a 9 s outage,
// and a time limit that ran out meanwhile reached its task as late,
// the cluster idle meanwhile). Until then the master, up or back, still
// holds the node and its tasks, which run on under the fence; and its
// return is likely soon (a restart, an upgrade). Past it the delays grow
// on to BackoffMax: the master, if up, has lost the node, and an outage
// that long (a lost host, a long maintenance) is not worth a try every
// second from every node for as long as it lasts. Before the first
// contact (a node that never registered) the backoff stands.
func (a *Agent) retryLimit(now time.Time) time.Duration {
	a.mu.Lock()
	last, f := a.fence.last(), a.fence.f
	a.mu.Unlock()
	return outageLimit(last, f, now, a.cfg.BackoffMax)
}

// outageLimit is retryLimit's rule: outageRetryMax while now is less
// than the agent timeout of fence f (or defaultAgentTimeout without one)
// after the last contact last, else longest, but never more than half
// that timeout once the node was in contact: a master that comes back
// after a long outage gives each node its agent timeout to register
// before it takes the node for lost, so a node must try at least twice
// within it (a BackoffMax of 30 s under an agent_timeout of 20 s would
// lose the node and, past lost_node_grace, the work it runs).
func outageLimit(last time.Time, f *api.Fence, now time.Time, longest time.Duration) time.Duration {
	window := defaultAgentTimeout
	if f != nil && f.AgentTimeoutMS > 0 {
		window = msDuration(f.AgentTimeoutMS)
	}
	switch {
	case last.IsZero():
		return longest
	case now.Sub(last) >= window:
		return min(longest, max(window/2, outageRetryMax))
	}
	return min(outageRetryMax, longest)
}

// answered reports whether err is the master's answer rather than a
// failure to reach it.
func answered(err error) bool {
	var se *statusError
	return errors.As(err, &se)
}

// logFailure logs the first failure of an outage as a warning and the
// rest at debug level, so that a long outage does not flood the log.
func (a *Agent) logFailure(ctx context.Context, failures int, err error) {
	lvl := slog.LevelDebug
	switch {
	case revokedCredential(err):
		// The registration that follows finds out what it means, and
		// says so (disown.go): not that tasks keep running.
	case permanent(err):
		lvl = slog.LevelError // a 4xx: the master refuses what we send
	case failures == 1 && client.CertError(err):
		// Only the master's new certificate, or a restart with another
		// --ca, can end it: said once, with what to do.
		a.log.Error("exchange with the master failed: "+client.TLSHint(err)+"; tasks keep running, reports are kept, retrying",
			"failures", failures, "err", err)
		return
	case failures == 1:
		lvl = slog.LevelWarn
	}
	a.log.Log(ctx, lvl, "exchange with the master failed; tasks keep running, reports are kept, retrying", "failures", failures, "err", err)
}

// reportLoop sends new reports at once with a sync that does not wait,
// so that they need not wait for the long poll in flight to return.
func (a *Agent) reportLoop(ctx context.Context) {
	bo := a.newBackoff(2)
	for {
		a.mu.Lock()
		ready := a.registered && a.dirty && len(a.reports) > 0
		if ready {
			a.dirty = false
		}
		ch := a.changed
		a.mu.Unlock()
		if !ready {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				continue
			}
		}
		if _, err := a.syncOnce(ctx, 0); err != nil {
			if ctx.Err() != nil {
				return
			}
			a.mu.Lock()
			a.dirty = true
			a.mu.Unlock()
			a.log.Debug("report sync failed; will retry", "err", err)
			if !sleep(ctx, bo.next()) {
				return
			}
			continue
		}
		bo.reset()
	}
}

// deliverAll runs at shutdown: it waits for the last exit reports and
// syncs until the master has stored every report, or ctx is done. It
// reports whether everything was delivered.
func (a *Agent) deliverAll(ctx context.Context) bool {
	bo := a.newBackoff(4)
	reg := &registrar{a: a}
	for {
		a.mu.Lock()
		done := len(a.tasks) == 0 && len(a.reports) == 0
		registered, pending, ch := a.registered, len(a.reports) > 0, a.changed
		disowned := a.disown.revoked
		a.mu.Unlock()
		if done {
			return true
		}
		var err error
		switch {
		case disowned:
			// Nothing goes to the master: wait for the tasks' ends.
			select {
			case <-ctx.Done():
				return false
			case <-ch:
				continue
			}
		case !registered:
			err = reg.register(ctx)
		case pending:
			_, err = a.syncOnce(ctx, 0)
			a.mu.Lock()
			if err == nil && len(a.reports) > 0 {
				// Stored nothing new: pace the retries all the same.
				err = errors.New("the master did not acknowledge the reports")
			}
			a.mu.Unlock()
		default:
			select {
			case <-ctx.Done():
				return false
			case <-ch:
				continue
			}
		}
		if err != nil && !sleep(ctx, bo.next()) {
			return false
		}
		if ctx.Err() != nil {
			return false
		}
	}
}
