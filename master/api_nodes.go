package master

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// maxDrainReason bounds a drain's reason, which every node listing shows.
const maxDrainReason = 1024

// nodeView is a node as the API shows it. Callers hold mu.
func nodeView(cfg *config.Config, n *mnode) api.Node {
	v := api.Node{Name: n.rec.Name, Pool: n.pool, State: string(n.rec.State), Slots: len(n.rec.GPUs),
		Used: len(n.used), Labels: nodeLabels(cfg, n), GPUs: make([]api.GPU, len(n.rec.GPUs)),
		RegisteredAt: n.rec.RegisteredAt, HeartbeatAt: n.seen, Version: n.version,
		Leaving: n.leaving && n.up(), PoolByRule: rulePool(cfg, n.rec.Name) != "", RuleLabels: nodeRule(cfg, n)}
	for i, g := range n.rec.GPUs {
		v.GPUs[i] = api.GPU{Index: g.Index, UUID: g.UUID, Type: g.Type, MemoryMiB: g.MemoryMiB}
	}
	// Which GPUs are held, not by whom: a caller who may not read the
	// holder's job still sees the GPU taken (the dashboard's grid).
	v.UsedGPUs = slices.Sorted(maps.Keys(n.used))
	if len(n.rec.GPUs) > 0 {
		v.GPUType = n.rec.GPUs[0].Type
	}
	if len(v.RuleLabels) > 0 {
		v.AgentLabels = maps.Clone(n.rec.Labels)
	}
	if n.rec.Pool != "" && n.rec.Pool != n.pool {
		v.AgentPool, v.PoolNote = n.rec.Pool, poolNote(cfg, n.rec.Name, n.rec.Pool)
	}
	if !n.up() && !n.lostAt.IsZero() {
		lost := n.lostAt
		v.LostAt = &lost
		if n.rec.State == store.NodeLost && len(n.used) > 0 {
			until := lost.Add(cfg.LostNodeGrace)
			v.HeldUntil = &until
		}
	}
	if d := n.rec.Drain; d != nil {
		at := d.At
		v.Drain, v.DrainReason, v.DrainedBy, v.DrainedAt = api.NodeDraining, d.Reason, d.By, &at
		if n.empty() {
			v.Drain = api.NodeDrained
		}
	}
	return v
}

// empty reports whether no task holds or has reserved anything on the node.
func (n *mnode) empty() bool { return len(n.used) == 0 && n.zeroUsed == 0 }

// draining reports whether the node takes no new task while its running
// ones finish: an admin drained it, or its agent is leaving.
func (n *mnode) draining() bool { return n.rec.Drain != nil || n.leaving }

// adminNode checks that the request is an admin's and names a known node,
// answering it otherwise; it returns the node's name.
func (ca *clusterAPI) adminNode(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	name := r.PathValue("name")
	if !ca.m.access.adminOnly(w, r, what+" nodes") {
		return "", false
	}
	v := ca.m.pub.reads()
	if v.node(name) == nil {
		names := v.nodeNames()
		writeError(w, http.StatusNotFound, "name", "%s", unknownValue("node", name, names).Error())
		return "", false
	}
	return name, true
}

// handleDrainNode stops new tasks from starting on a node; those running
// there finish. The drain is stored first, so that a master restart keeps
// it.
func (ca *clusterAPI) handleDrainNode(w http.ResponseWriter, r *http.Request) {
	name, ok := ca.adminNode(w, r, "draining")
	if !ok {
		return
	}
	var req api.NodeDrainRequest
	if err := decodeBody(w, r, &req); err != nil {
		ca.fail(w, err)
		return
	}
	req.Reason = strings.TrimSpace(req.Reason)
	switch {
	case req.Reason == "":
		ca.fail(w, badRequest("reason", "reason is empty: say why the node is drained (it shows in node listings)"))
		return
	case utf8.RuneCountInString(req.Reason) > maxDrainReason:
		ca.fail(w, badRequest("reason", "reason is longer than %d characters", maxDrainReason))
		return
	}
	by := principalOf(r).User
	if by == "" {
		by = principalOf(r).Actor()
	}
	d := &store.NodeDrain{At: ca.m.now(), Reason: req.Reason, By: by}
	ca.setDrain(w, r.Context(), name, d)
}

// handleResumeNode makes a drained node schedulable again.
func (ca *clusterAPI) handleResumeNode(w http.ResponseWriter, r *http.Request) {
	if name, ok := ca.adminNode(w, r, "resuming"); ok {
		ca.setDrain(w, r.Context(), name, nil)
	}
}

// setDrain stores the node's drain (nil: none), then applies it to the
// mirror and answers with the node.
func (ca *clusterAPI) setDrain(w http.ResponseWriter, ctx context.Context, name string, d *store.NodeDrain) {
	defer ca.m.betweenSettlings()()
	ca.m.lock()
	defer ca.m.unlock()
	n := ca.m.nodes[name]
	if n == nil {
		writeError(w, http.StatusNotFound, "name", "node %q was deleted", name)
		return
	}
	was := n.rec.Drain
	rec, err := ca.m.st.SetNodeDrain(ctx, name, d, ca.m.now())
	if err != nil {
		ca.fail(w, err)
		return
	}
	noteAudit(ctx, "%s", drainDetail(was, d))
	n.rec.Drain = rec.Drain
	ca.m.pub.markNode(n)
	if d != nil {
		ca.m.log.Info("node draining", "node", name, "reason", d.Reason, "by", d.By, "tasks", len(ca.m.tasksOn(name)))
	} else {
		ca.m.log.Info("node resumed", "node", name)
	}
	ca.m.kick() // a resumed node has room; a drained one changes reservations
	ca.m.planner.etaRun.want()
	ca.m.pub.publish() // before the answer, so that the client's next read shows it
	writeJSON(w, http.StatusOK, nodeView(ca.m.cfg, n))
}

// holders names, as JOB/TASK, the tasks that run on the node or hold its
// GPUs for a move. Callers hold mu.
func (ca *clusterAPI) holders(n *mnode) []string {
	seen := map[*mtask]bool{}
	var tasks []*mtask
	for _, t := range n.used {
		if !seen[t] {
			seen[t] = true
			tasks = append(tasks, t)
		}
	}
	for _, t := range ca.m.tasksOn(n.rec.Name) {
		if !seen[t] {
			seen[t] = true
			tasks = append(tasks, t)
		}
	}
	out := make([]string, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, fmt.Sprintf("%d/%d", t.job.rec.ID, t.rec.Index))
	}
	slices.Sort(out)
	return out
}
