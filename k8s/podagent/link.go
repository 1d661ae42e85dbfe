package podagent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/backstop"
	"github.com/allot-sched/allot/client"
)

// errNotRegistered is a sync answered 404: the master does not know the
// node (it lost its database, or was never told), so register again.
var errNotRegistered = errors.New("the master does not know this node")

// errRejected is a 4xx other than 404 and 429: sending again would not
// help.
var errRejected = errors.New("rejected by the master")

// link is one Kubernetes node's conversation with the master, in the
// agent protocol (api/doc.go): the same register, long-poll sync and
// report rules as agentd's, for a node whose tasks are pods. Its reports
// and the node's attempts are guarded by the Agent's mu.
type link struct {
	a    *Agent
	name string
	stop context.CancelFunc
	done chan struct{}
	kick chan struct{} // a report is queued
	// limitsHeard wakes limitLoop: a reply changed the time limits.
	limitsHeard chan struct{}
	regGen      int // bumped by a change of the registration
	// execMu serialises the commands of the two loops' replies, so a
	// repeated start cannot race its first, as in agentd.
	execMu sync.Mutex

	// Guarded by a.mu.
	reg     api.Register // without Running
	seq     int64
	pending []api.Report // not yet acknowledged, in Seq order
	waitS   int
	// limits is the node's attempts' time limits, as the master's last
	// reply listed them (timelimit.go).
	limits backstop.Limits
	// registered says this process has registered the node. Until it
	// has, no sync goes out: the master would count this process's
	// reports against the sequence numbers of the previous one, and
	// take new reports for ones it has seen.
	registered bool
}

// run registers and syncs until ctx ends, registering again when the
// master asks or the node changed, retrying with capped backoff.
func (l *link) run(ctx context.Context) {
	defer close(l.done)
	go l.reportLoop(ctx)
	go l.limitLoop(ctx)
	backoff := time.Duration(0)
	registered := -1 // the regGen registered, -1 for none
	for ctx.Err() == nil {
		l.a.mu.Lock()
		gen, wait := l.regGen, l.waitS
		l.a.mu.Unlock()
		var err error
		if registered != gen {
			if err = l.register(ctx); err == nil {
				registered = gen
			}
		} else if err = l.sync(ctx, wait); errors.Is(err, errNotRegistered) {
			registered = -1
			continue
		}
		if err == nil {
			backoff = 0
			continue
		}
		if ctx.Err() != nil {
			return
		}
		backoff = min(max(2*backoff, 250*time.Millisecond), 30*time.Second)
		if hint := client.TLSHint(err); hint != "" {
			// No retry passes until the master's certificate or this
			// agent's --ca changes; error level, so that it is seen.
			l.a.log.Error("cannot talk to the master: "+hint+"; retrying", "node", l.name, "err", err, "in", backoff)
		} else {
			l.a.log.Warn("master unreachable or failing; retrying", "node", l.name, "err", err, "in", backoff)
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
	}
}

// reportLoop sends new reports at once with a sync that does not wait,
// so that an exit need not wait for the long poll in flight. A failure
// leaves them to the next sync of either loop.
func (l *link) reportLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.kick:
		}
		l.a.mu.Lock()
		idle := len(l.pending) == 0 || !l.registered
		l.a.mu.Unlock()
		if !idle {
			if err := l.sync(ctx, 0); err != nil && ctx.Err() == nil {
				l.a.log.Debug("report sync failed; the next sync retries", "node", l.name, "err", err)
			}
		}
	}
}

// setReg updates the registration; a change makes the link register
// again, which is how the master learns of a new GPU count or pool.
func (l *link) setReg(reg api.Register) (changed bool) {
	l.a.mu.Lock()
	defer l.a.mu.Unlock()
	if reflect.DeepEqual(l.reg, reg) {
		return false
	}
	l.reg = reg
	l.regGen++
	return true
}

// enqueueLocked gives a report the next Seq and queues it; a.mu held.
func (l *link) enqueueLocked(r api.Report) {
	l.seq++
	r.Seq = l.seq
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	l.pending = append(l.pending, r)
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *link) register(ctx context.Context) error {
	l.a.mu.Lock()
	reg := l.reg
	reg.Running = l.a.runningLocked(l.name)
	l.a.mu.Unlock()
	var reply api.RegisterReply
	if err := l.post(ctx, "/agents/register", reg, &reply); err != nil {
		return fmt.Errorf("register node %s: %w", l.name, err)
	}
	if reply.Credential != "" {
		// Kept before it is relied on, so that a restart can register
		// the node again without a join token.
		if err := l.a.creds.save(ctx, l.name, reply.Credential); err != nil {
			return fmt.Errorf("register node %s: %w", l.name, err)
		}
	}
	l.a.mu.Lock()
	if reply.SyncWaitS > 0 {
		l.waitS = reply.SyncWaitS
	}
	l.registered = true
	l.heardLimitsLocked(reply.TimeLimits, true)
	l.a.mu.Unlock()
	// The master's pool: a node rule of its configuration may pin the
	// node elsewhere than the pool asked for.
	l.a.log.Info("node registered", "node", l.name, "gpus", len(reg.GPUs), "pool", cmp.Or(reply.Pool, reg.Pool), "running", len(reg.Running))
	l.a.execute(ctx, l, reply.Commands)
	return nil
}

func (l *link) sync(ctx context.Context, waitS int) error {
	l.a.mu.Lock()
	if !l.registered {
		l.a.mu.Unlock()
		return errNotRegistered
	}
	s := l.syncBodyLocked(waitS)
	l.a.mu.Unlock()
	if s.Reports == nil {
		s.Reports = []api.Report{}
	}
	var reply api.SyncReply
	if err := l.post(ctx, "/agents/"+l.name+"/sync", s, &reply); err != nil {
		if errors.Is(err, errNotRegistered) {
			l.a.mu.Lock()
			l.registered = false
			l.a.mu.Unlock()
		}
		return err
	}
	l.a.mu.Lock()
	l.pending = slices.DeleteFunc(l.pending, func(r api.Report) bool { return r.Seq <= reply.Acked })
	l.heardLimitsLocked(reply.TimeLimits, false)
	l.a.mu.Unlock()
	l.a.acked(l, reply.Acked)
	l.a.execute(ctx, l, reply.Commands)
	return nil
}

// syncBodyLocked is the sync the link sends: its reports not yet
// acknowledged, as its master takes them, and the attempts running.
// a.mu held.
func (l *link) syncBodyLocked(waitS int) api.Sync {
	return api.Sync{Reports: backstop.ForMaster(l.pending, l.limits.Known()), Running: l.a.runningLocked(l.name), WaitS: waitS}
}

// postLogs delivers a batch of an attempt's lines, retrying until the
// master takes or rejects it, or ctx ends.
func (l *link) postLogs(ctx context.Context, lines []api.AgentLogLine) error {
	backoff := 250 * time.Millisecond
	for {
		err := l.post(ctx, "/agents/"+l.name+"/logs", api.LogBatch{Lines: lines}, nil)
		if err == nil || errors.Is(err, errRejected) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// post sends one request of the protocol with the node's credential, or
// the join token until the node has one.
func (l *link) post(ctx context.Context, path string, body, reply any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	wait := 0
	if s, ok := body.(api.Sync); ok {
		wait = s.WaitS
	}
	ctx, cancel := context.WithTimeout(ctx, l.a.cfg.RequestTimeout+time.Duration(wait)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.a.base+api.Version+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	tok := l.a.creds.get(l.name)
	if tok == "" {
		tok = l.a.cfg.JoinToken
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := l.a.cfg.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, api.MaxBodyBytes))
	if err != nil {
		return err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && path != "/agents/register":
		return errNotRegistered
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
		return fmt.Errorf("%s: %s: %s: %w", path, resp.Status, bytes.TrimSpace(raw), errRejected)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(raw))
	case reply == nil:
		return nil
	}
	if err := json.Unmarshal(raw, reply); err != nil {
		return fmt.Errorf("%s: decode the reply: %w", path, err)
	}
	return nil
}

// sortIDs orders attempts as the master lists them, for stable requests.
func sortIDs(ids []agent.TaskID) {
	slices.SortFunc(ids, func(x, y agent.TaskID) int {
		if c := len(x.JobID) - len(y.JobID); c != 0 {
			return c
		}
		if x.JobID != y.JobID {
			if x.JobID < y.JobID {
				return -1
			}
			return 1
		}
		if x.TaskIndex != y.TaskIndex {
			return x.TaskIndex - y.TaskIndex
		}
		return x.Attempt - y.Attempt
	})
}
