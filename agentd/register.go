package agentd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// registrar registers the node with the master: the registration's
// request and its retries in another form (with the join token once the
// node's credential is refused, in an older master's fields), taking the
// reply in, and the log lines about it. Each loop that registers (the
// sync loop, the delivery at shutdown, the leaving node's syncs) has a
// registrar of its own; only the sync loop logs failures, and its
// registrar remembers the reason it last logged at warn level, so that
// a registration refused again and again for one reason is logged once.
type registrar struct {
	a *Agent
	// lastWarned is the reason (reasonKey) of the last failure logged at
	// warn level or above; "" since a success.
	lastWarned string
}

// register announces the node with what it runs now and executes the
// reconciliation's commands. While the agent shuts down (leaving), the
// registration says so, so that the master keeps the node's leave, or
// starts it, rather than taking the agent for one that takes work.
func (r *registrar) register(ctx context.Context) error {
	a := r.a
	a.mu.Lock()
	running, exited := a.snapshotTasks()
	req := api.Register{
		Name:    a.cfg.Name,
		Pool:    a.cfg.Pool,
		Labels:  a.cfg.Labels,
		GPUs:    apiGPUs(a.cfg.GPUs),
		Running: running,
		Exited:  exited,
		Version: a.cfg.Version,
		Leaving: a.leaving,
	}
	a.mu.Unlock()
	var reply api.RegisterReply
	err := r.postRegister(ctx, &req, &reply)
	revoked, joined := revokedCredential(err), false
	if isStatus(err, http.StatusUnauthorized) && a.cred.drop(revoked) {
		a.log.Warn("the master refused the node's credential; registering with the join token", "err", err)
		err, joined = r.postRegister(ctx, &req, &reply), true
	}
	if err != nil {
		(disowner{a}).afterRefusal(err, revoked, joined)
		return err
	}
	if reply.Credential != "" {
		if err := a.cred.save(reply.Credential); err != nil {
			return err
		}
		a.log.Info("joined the cluster; the node's credential is saved", "file", a.cred.path)
	}
	// Before the first sync, so before anything new starts on the GPUs.
	straysOf(a).settle()
	a.mu.Lock()
	(disowner{a}).ownedAgainLocked()
	a.registered = true
	a.gen++
	a.waitS = max(reply.SyncWaitS, 0)
	a.placement, a.placeGen = reply.NodePlacement, reply.PlacementGen
	a.caps.heardLocked(reply.Accepts)
	a.fencer().heardLocked(time.Now(), reply.Fence)
	a.limiter().heardLimitsLocked(time.Now(), reply.TimeLimits, true)
	a.broadcast()
	a.mu.Unlock()
	r.logRegistered(ctx, req, reply)
	a.execute(reply.Commands)
	return nil
}

// postRegister posts a registration. A master older than
// api.Register.Exited refuses the field as unknown: it gets the
// registration it knows, the exited attempts listed as running, as
// agents did before the field (it then charges them until the
// registration), rather than none, which it would end as not run.
func (r *registrar) postRegister(ctx context.Context, req *api.Register, reply *api.RegisterReply) error {
	a := r.a
	err := a.conn.post(ctx, "/agents/register", a.cfg.RequestTimeout, req, reply)
	if len(req.Exited) == 0 || !refusedAsUnknown(err, "exited") {
		return err
	}
	a.log.Info("the master is older than the registration's list of exited attempts; "+
		"listing them as running, as older agents did", "exited", len(req.Exited))
	req.Running = append(req.Running, req.Exited...)
	req.Exited = nil
	sortIDs(req.Running)
	return a.conn.post(ctx, "/agents/register", a.cfg.RequestTimeout, req, reply)
}

// refusedAsUnknown reports whether err is the master's 400 for a request
// field it does not know (a master older than the field).
func refusedAsUnknown(err error, field string) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == http.StatusBadRequest &&
		strings.Contains(se.msg, fmt.Sprintf("unknown field %q", field))
}

// logRegistered logs the registration: where the master put the node
// (the pool, and the labels when a node rule changed them), then the
// notes on what differs from what the agent asked for.
func (r *registrar) logRegistered(ctx context.Context, req api.Register, reply api.RegisterReply) {
	a := r.a
	args := []any{"running", len(req.Running), "sync_wait_s", reply.SyncWaitS, "commands", len(reply.Commands)}
	if len(req.Exited) > 0 {
		// Ended, their reports waiting for their output (api.Register.Exited).
		args = append(args, "exited", len(req.Exited))
	}
	if reply.Pool != "" {
		args = append([]any{"pool", reply.Pool}, args...)
	}
	if reply.Labels != nil {
		args = append(args, "labels", formatLabels(reply.Labels))
	}
	a.log.Info("registered with the master", args...)
	for _, n := range placementNotes(req.Name, req.Pool, req.Labels, reply.NodePlacement) {
		a.log.Log(ctx, n.level, n.msg)
	}
}

// logFailure logs why a registration failed: at warn level when the
// reason differs from the last one so logged (lastWarned), at debug
// level when it repeats, so that an operator sees why a node does not
// come back without a line per retry. Reasons that differ only in their
// numbers are one reason: the master's refusal of a held name says how
// long ago the holder was seen, which changes at every retry.
func (r *registrar) logFailure(ctx context.Context, err error) {
	a := r.a
	lvl, key := slog.LevelDebug, reasonKey(err.Error())
	switch {
	case key == r.lastWarned:
	case permanent(err), client.CertError(err):
		// A 4xx: the master refuses what we send; a certificate this
		// agent cannot verify: only a new one, or another --ca, helps.
		lvl = slog.LevelError
	default:
		lvl = slog.LevelWarn
	}
	msg := "registering with the master failed"
	if hint := client.TLSHint(err); hint != "" {
		msg += ": " + hint
	}
	a.mu.Lock()
	if len(a.tasks) > 0 {
		msg += "; tasks keep running, retrying"
	} else {
		msg += "; retrying"
	}
	a.mu.Unlock()
	a.log.Log(ctx, lvl, msg, "err", err)
	if lvl != slog.LevelDebug {
		r.lastWarned = key
	}
}

// reasonKey is msg with every run of digits replaced by one '#', so that
// two failures that differ only in an age or a count compare equal.
func reasonKey(msg string) string {
	var b strings.Builder
	digits := false
	for _, r := range msg {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// refusedJoin reports whether a registration was refused for what it
// is, not for the moment: bad input, a bad credential or a refused one.
// A held name (409) may free up, so it is retried.
func refusedJoin(err error) bool {
	for _, st := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity} {
		if isStatus(err, st) {
			return true
		}
	}
	return false
}

// fatal is the error that ends the agent for a failed registration, nil
// to retry. Only a node that never registered in this process and runs
// nothing ends: a registration the master refused for what it is
// (refusedJoin), or a master certificate the agent cannot verify, which
// no retry passes while the agent's --ca and the master's certificate
// stay as they are (trial 2026-11-29c C2: it was retried forever at
// warn level). A node that runs tasks, or registered before, keeps
// retrying (logFailure says why at error level, once): exiting would
// leave its tasks unreported, and the master's operator may yet renew or
// reissue the certificate it presents.
func (r *registrar) fatal(err error) error {
	switch {
	case err == nil || !r.neverRegistered():
		return nil
	case refusedJoin(err):
		return fmt.Errorf("the master refused to register node %s: %w", r.a.cfg.Name, err)
	case client.CertError(err):
		return fmt.Errorf("cannot register node %s with the master at %s: %s: %w", r.a.cfg.Name, r.a.cfg.Master, client.TLSHint(err), err)
	}
	return nil
}

// neverRegistered reports whether the node never registered in this
// process and runs nothing: a refusal then ends the agent (syncLoop).
func (r *registrar) neverRegistered() bool {
	a := r.a
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen == 0 && len(a.tasks) == 0
}
