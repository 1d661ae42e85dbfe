package master

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/yamlfield"
)

func (ag *agents) handleRegister(w http.ResponseWriter, r *http.Request) {
	var reg api.Register
	if err := decodeBody(w, r, &reg); err != nil {
		ag.fail(w, err)
		return
	}
	if err := ag.checkRegister(&reg); err != nil {
		ag.fail(w, err)
		return
	}
	secret, err := ag.admitNode(r, reg.Name)
	if err != nil {
		ag.m.access.deny(w, r, err)
		return
	}
	between := ag.m.betweenSettlings() // a return, or a new shape
	ag.m.lock()
	reply, err := ag.register(r.Context(), reg)
	if err == nil {
		ag.told(ag.m.nodes[reg.Name], reply.NodePlacement)
		reply.PlacementGen = int64(ag.m.cfgGen)
	}
	ag.m.unlock()
	between()
	if err != nil {
		ag.fail(w, err)
		return
	}
	reply.Credential = secret
	writeJSON(w, http.StatusOK, reply)
}

// nodePlacement is node n's placement as the master tells its agent. Callers
// hold mu.
func nodePlacement(cfg *config.Config, n *mnode) api.NodePlacement {
	return api.NodePlacement{Pool: n.pool, PoolByRule: rulePool(cfg, n.rec.Name) != "", Labels: ruledLabels(cfg, n)}
}

// told records that node n's agent heard of placement p (its
// registration reply). Callers hold mu.
func (ag *agents) told(n *mnode, p api.NodePlacement) {
	n.told, n.toldGen, n.toldSince = p, ag.m.cfgGen, ag.m.cfgGen
}

// placementNews is node n's placement for a sync reply whose request
// acknowledged placement generation acked, and the reply's generation.
// An agent that acknowledges (acked > 0) gets the placement in every
// reply until it acknowledges a generation that has it, so that a lost
// reply loses nothing: the current generation says it has the placement
// in force (which only a reload changes between registrations, and each
// reload moves the generation on), one from toldSince on that it has
// what it was told last, and any other one (older, or of another master
// process) that it may not. An agent older than the acknowledgement
// (acked 0) is told once, as before it: repeated, the news would make
// it log the move again at every sync. Callers hold mu.
func (ag *agents) placementNews(n *mnode, acked int64) (int64, *api.NodePlacement) {
	gen := ag.m.cfgGen
	if acked == 0 {
		if !ag.checkTold(n) {
			return 0, nil
		}
		p := n.told
		return 0, &p
	}
	if ag.placementDue(n, acked) {
		p := n.told
		return int64(gen), &p
	}
	return int64(gen), nil
}

// placementDue reports whether a sync of node n's agent that
// acknowledged placement generation acked (> 0) is owed the placement
// (placementNews); such a sync is answered at once, not held. Callers
// hold mu.
func (ag *agents) placementDue(n *mnode, acked int64) bool {
	gen := int64(ag.m.cfgGen)
	if acked == 0 || acked == gen {
		return false
	}
	ag.checkTold(n)
	return acked < int64(n.toldSince) || acked > gen
}

// checkTold brings node n's told up to the configuration in force, and
// reports whether that changed it. A node checked since the
// configuration's last change is skipped without looking at the rules.
// Callers hold mu.
func (ag *agents) checkTold(n *mnode) bool {
	if n.toldGen == ag.m.cfgGen {
		return false
	}
	n.toldGen = ag.m.cfgGen
	p := nodePlacement(ag.m.cfg, n)
	if samePlacement(p, n.told) {
		return false
	}
	n.told, n.toldSince = p, ag.m.cfgGen
	return true
}

// wakeMoved answers node n's held syncs at once when a reload changed
// its placement, so that its agent hears of the move now rather than at
// the end of its long poll. Callers hold mu.
func wakeMoved(cfg *config.Config, n *mnode) {
	if n.registered && n.polling > 0 && !samePlacement(nodePlacement(cfg, n), n.told) {
		close(n.wake)
		n.wake = make(chan struct{})
	}
}

func samePlacement(a, b api.NodePlacement) bool {
	return a.Pool == b.Pool && a.PoolByRule == b.PoolByRule && maps.Equal(a.Labels, b.Labels)
}

// admitNode decides whether the request may register node name: with the
// node's own credential always; with a join token only while no agent
// holds the name (its lease has run out), and then it issues the node a
// new credential, returned as secret, and revokes the node's old ones.
func (ag *agents) admitNode(r *http.Request, name string) (secret string, err error) {
	ri := infoOf(r)
	if ri.cred.Kind == store.CredNode {
		if ri.cred.Subject != name {
			return "", &auth.Error{Status: http.StatusForbidden,
				Msg: fmt.Sprintf("the credential of node %q cannot register node %q", ri.cred.Subject, name)}
		}
		return "", nil
	}
	ag.m.lock()
	n := ag.m.nodes[name]
	now, lease := ag.m.now(), agentTimeout(ag.m.cfg)
	// The lease runs on the agent timeout's clock (lastSeen), which a
	// restarted master starts anew for every node, as it does not count
	// its own downtime as the node's silence (restoreNodes): a join token
	// could otherwise take a healthy node's name in the first second
	// after a restart, before its agent is back (trial 2026-11-29a A12).
	// What the refusal and the audit say is the real last contact (seen),
	// which the store keeps across restarts.
	var seen, leaseFrom time.Time
	if n != nil {
		seen, leaseFrom = n.seen, n.lastSeen
	}
	ag.m.unlock()
	if n != nil && now.Sub(leaseFrom) < lease {
		return "", &httpError{status: http.StatusConflict, field: "name", msg: fmt.Sprintf(
			"node %q is held by another agent, last seen %s: a join token cannot take over a node until its lease of %s "+
				"runs out%s; the agent that holds it registers with its own credential", name, seenAgo(now, seen), lease,
			leaseLeft(now, leaseFrom, seen, lease))}
	}
	secret, hash, err := auth.NewSecret(auth.PrefixNode)
	if err != nil {
		return "", err
	}
	c, err := ag.m.st.CreateCredential(r.Context(), store.Credential{Kind: store.CredNode, Subject: name, Hash: hash,
		Note: fmt.Sprintf("issued at registration with join token %d", ri.cred.ID), CreatedBy: "join:" + fmt.Sprint(ri.cred.ID), CreatedAt: now})
	if err != nil {
		return "", err
	}
	if err := ag.joined(r, name, n, seen, c); err != nil { // nodejoin.go: revokes the old, audits
		return "", err
	}
	ag.m.access.creds.forget(ofNode(name)) // the node's earlier credentials were revoked
	ri.principal = auth.Principal{Node: name}
	return secret, nil
}

// seenAgo is "3s ago" for a last contact at seen, or "never" for none.
func seenAgo(now, seen time.Time) string {
	if seen.IsZero() {
		return "never"
	}
	return now.Sub(seen).Round(time.Second).String() + " ago"
}

// leaseLeft says when a lease that counts from from rather than from the
// last contact seen runs out (after a master's restart or a store outage
// every node's agent gets a full agent timeout to come back); "" when it
// counts from the contact.
func leaseLeft(now, from, seen time.Time, lease time.Duration) string {
	if !from.After(seen) {
		return ""
	}
	return fmt.Sprintf(" (in %s: after the master's restart or a store outage every node's agent has that long to come back)",
		from.Add(lease).Sub(now).Round(time.Second))
}

// checkRegister validates a registration. Its pool stays the agent's,
// which the node record keeps (nodePool reads the rules over it at every
// use); a pool the configuration lacks is refused unless a node rule
// pins the node, as the agent may then be told of its mistake at once.
func (ag *agents) checkRegister(reg *api.Register) error {
	if err := auth.CheckName("name", reg.Name); err != nil {
		return badRequest("name", "%v", err)
	}
	maxGPUs := ag.maxNodeGPUs()
	if len(reg.GPUs) > maxGPUs {
		return &httpError{status: http.StatusUnprocessableEntity, field: "gpus", msg: fmt.Sprintf(
			"gpus: node %s declares %d GPUs; the most a node may declare is %d (max_node_gpus in the configuration, or --max-node-gpus)",
			reg.Name, len(reg.GPUs), maxGPUs)}
	}
	if err := checkLabels(reg.Labels); err != nil {
		return err
	}
	seen := map[int]bool{}
	for i, g := range reg.GPUs {
		if g.Index < 0 || seen[g.Index] {
			return badRequest("gpus", "gpus[%d]: index %d is negative or repeated", i, g.Index)
		}
		if g.Index >= maxGPUs {
			return badRequest("gpus", "gpus[%d]: index %d: expected below %d, the most GPUs a node may declare", i, g.Index, maxGPUs)
		}
		if err := auth.CheckName(fmt.Sprintf("gpus[%d]: type", i), g.Type); err != nil {
			return badRequest("gpus", "%v", err)
		}
		if len(g.UUID) > 128 || g.MemoryMiB < 0 || g.MemoryMiB > 1<<24 {
			return badRequest("gpus", "gpus[%d]: expected a UUID of at most 128 characters and memory_mib in 0..%d", i, 1<<24)
		}
		seen[g.Index] = true
	}
	for i, id := range reg.Running {
		if err := checkTaskID(id); err != nil {
			return badRequest("running", "running[%d]: %v", i, err)
		}
	}
	if err := checkExited(*reg); err != nil {
		return err
	}
	ag.m.lock()
	cfg := ag.m.cfg
	refused := poolNote(cfg, reg.Name, reg.Pool) != ""
	ag.m.unlock()
	if refused {
		return badRequest("pool", "pool %q is not configured%s (pools: %s)", reg.Pool,
			yamlfield.Suggest(reg.Pool, cfg.PoolNames()), strings.Join(cfg.PoolNames(), ", "))
	}
	return nil
}

// maxNodeGPUs is the configuration's max_node_gpus, else the master's
// option.
func (ag *agents) maxNodeGPUs() int {
	if n := ag.m.Config().MaxNodeGPUs; n > 0 {
		return n
	}
	return ag.m.opt.MaxNodeGPUs
}

// Limits on a node's labels, which go into every snapshot and view.
const (
	maxLabels   = 64
	maxLabelLen = 253
)

func checkLabels(labels map[string]string) error {
	if len(labels) > maxLabels {
		return badRequest("labels", "labels: %d given; expected at most %d", len(labels), maxLabels)
	}
	for k, v := range labels {
		if k == "" || len(k) > maxLabelLen || len(v) > maxLabelLen {
			return badRequest("labels", "labels[%.40q]: expected a key of 1 to %d characters and a value of at most %d",
				k, maxLabelLen, maxLabelLen)
		}
	}
	return nil
}

func checkTaskID(id agent.TaskID) error {
	if id.JobID == "" || id.TaskIndex < 0 || id.Attempt < 1 {
		return fmt.Errorf("task %s: expected a job id, an index >= 0 and an attempt >= 1", id)
	}
	return nil
}

func (ag *agents) handleSync(w http.ResponseWriter, r *http.Request) {
	var s api.Sync
	if err := decodeBody(w, r, &s); err != nil {
		ag.fail(w, err)
		return
	}
	if err := checkSync(s); err != nil {
		ag.fail(w, err)
		return
	}
	st := newSyncStream(w, r)
	reply, err := ag.sync(r.Context(), r.PathValue("name"), s, st)
	if st.began {
		// The 200 went out when the hold began: only the node's loss
		// meanwhile fails the sync then, said in the body.
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, errUnknownNode) {
				status = http.StatusNotFound
			}
			reply = api.SyncReply{Status: status, Error: fmt.Sprintf("%s: %v", r.PathValue("name"), err)}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(reply) // a failed write means the agent went away
		return
	}
	if errors.Is(err, errUnknownNode) {
		infoOf(r).reRegister = true
		if lease, ok := nodeLease(ag, r.PathValue("name")); ok {
			w.Header().Set(api.NodeLeaseHeader, strconv.FormatInt(lease.Milliseconds(), 10))
		}
		writeError(w, http.StatusNotFound, "name", "%s: %v", r.PathValue("name"), err)
		return
	}
	if err != nil {
		ag.m.access.deny(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

// nodeLease is how much longer the master waits for node name's agent to
// register before it loses the node, for the 404 that answers a sync of
// an agent it does not know (api.NodeLeaseHeader): only for a node it
// knows, up, and not registered with this process (it restarted, and
// gave the node one agent timeout from its start). A lost or deleted
// node has none: its attempts may run elsewhere, and the agent's fence
// must go on counting.
func nodeLease(ag *agents, name string) (time.Duration, bool) {
	ag.m.lock()
	defer ag.m.unlock()
	n := ag.m.nodes[name]
	if n == nil || !n.up() || n.registered {
		return 0, false
	}
	return max(agentTimeout(ag.m.cfg)-ag.m.now().Sub(n.lastSeen), 0), true
}

func checkSync(s api.Sync) error {
	if s.WaitS < 0 {
		return badRequest("wait_s", "wait_s %d: expected seconds >= 0", s.WaitS)
	}
	if s.PlacementGen < 0 {
		return badRequest("placement_gen", "placement_gen %d: expected a generation >= 0", s.PlacementGen)
	}
	for i, r := range s.Reports {
		switch {
		case r.Seq < 1:
			return badRequest("reports", "reports[%d]: seq %d: expected >= 1", i, r.Seq)
		case checkTaskID(r.Task) != nil:
			return badRequest("reports", "reports[%d]: %v", i, checkTaskID(r.Task))
		case r.Event != api.EventRunning && r.Event != api.EventExited && r.Event != api.EventMetrics:
			return badRequest("reports", "reports[%d]: event %q: expected running, exited or metrics", i, r.Event)
		case r.Event == api.EventMetrics && r.Step < 0:
			return badRequest("reports", "reports[%d]: step %d: expected >= 0", i, r.Step)
		case r.Event == api.EventMetrics && store.ValidateMetricValues(r.Metrics) != nil:
			return badRequest("reports", "reports[%d]: %v", i, store.ValidateMetricValues(r.Metrics))
		case r.Event == api.EventExited && !validOutcome(r.Outcome):
			return badRequest("reports", "reports[%d]: outcome %q: expected completed, failed, preempted or killed", i, r.Outcome)
		}
	}
	for i, id := range s.Running {
		if err := checkTaskID(id); err != nil {
			return badRequest("running", "running[%d]: %v", i, err)
		}
	}
	return nil
}

func validOutcome(o string) bool {
	switch agent.Outcome(o) {
	case agent.OutcomeCompleted, agent.OutcomeFailed, agent.OutcomePreempted, agent.OutcomeKilled:
		return true
	}
	return false
}
