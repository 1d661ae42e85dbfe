package master

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// A join token's registration of a node name (agents.admitNode) gives the
// name to a host with a new credential: a new node, or a takeover of a
// node whose agent's lease ran out (the documented "dead machine
// replaced" path). It must not read like the old agent's routine
// re-registrations, so joined records it: the old credentials revoked and
// the node's registration dated now (REGISTERED in allot nodes), in one
// transaction (store.TakeOverNode), and the audit entry's actor is the
// join token (auditActor) with a detail such as
//
//	joined as r2 (was lost, last seen 6s ago); revoked node credential 8, issued 16
//
// so that an auditor sees which token took the name over, from what, and
// which credential the old host's refused requests (node:r2) carry.

// joined records that join token of r registered node name with
// credential issued; was is the node before (nil for a new node) and seen
// when its agent was last heard from.
func (ag *agents) joined(r *http.Request, name string, was *mnode, seen time.Time, issued store.Credential) error {
	now := ag.m.now()
	revoked, err := ag.m.st.TakeOverNode(r.Context(), name, issued.ID, now)
	if err != nil {
		return err
	}
	how := "a new node"
	if was != nil {
		ag.m.lock()
		state := string(was.rec.State)
		was.joinedBy, was.joinedAt = infoOf(r).cred.ID, now
		was.joinedFence = time.Time{}
		if was.rec.State == store.NodeLost && !was.lostAt.IsZero() {
			was.joinedFence = was.lostAt.Add(ag.m.cfg.LostNodeGrace)
		}
		ag.m.unlock()
		how = fmt.Sprintf("was %s, last seen %s", state, seenAgo(now, seen))
	}
	detail := fmt.Sprintf("joined as %s (%s); ", name, how)
	if len(revoked) > 0 {
		ids := make([]string, len(revoked))
		for i, id := range revoked {
			ids[i] = fmt.Sprint(id)
		}
		detail += fmt.Sprintf("revoked node credential %s, ", strings.Join(ids, ", "))
	}
	detail += fmt.Sprintf("issued %d", issued.ID)
	noteAudit(r.Context(), "%s", detail)
	if was != nil {
		ag.m.log.Warn("node taken over with a join token", "node", name, "join_token", infoOf(r).cred.ID,
			"revoked", revoked, "issued", issued.ID)
	}
	return nil
}

// notRunReason says why an attempt the agent of node does not run ended:
// after a takeover by join token joined at at (0: none), that a new host
// took the name, so that its user does not read that the node lost the
// work on its own (trial 2026-11-29a A7), and what stops the attempt's
// processes should the old host still run them: its task shim's own
// fence at fence, the end of lost_node_grace (zero: not said), the new
// agent at once when on the same host (agentd/strays.go), and the old host's
// agent, its credential revoked, if it comes back (trial 2026-11-29b B13).
func notRunReason(node string, attempt int, joined int64, at, fence time.Time) string {
	if joined == 0 {
		return fmt.Sprintf("node %s does not run attempt %d", node, attempt)
	}
	stops := ""
	if !fence.IsZero() {
		stops = fmt.Sprintf("its task shim's fence stops it at %s (the end of lost_node_grace, then the pool's grace), ", msgTime(fence))
	}
	return fmt.Sprintf("node %s was taken over at %s by a new agent with join token %d, which does not run attempt %d; "+
		"if the old host still runs it, the new agent stops it at once when on the same host, %s"+
		"and the old host's agent, its credential revoked, stops it if it comes back", node, msgTime(at), joined, attempt, stops)
}

// settleMissing ends as lost the attempts that the agent does not run: those
// it left out when it registered (neither running nor exited: exitSaid) and
// did not report on since, and those
// whose start command went out two syncs and startGrace ago without a word
// back. Both conditions are needed: an agent syncs again (to send other
// reports) while it is still starting a process, and its running list
// names an attempt only once the process runs.
func (ag *agents) settleMissing(ctx context.Context, n *mnode, runs map[agent.TaskID]bool) error {
	var lost []*mtask
	now := ag.m.now()
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		p := t.part(n.rec.Name)
		if runs[t.id()] || p.state == partExited || p.exitSaid || p.state != partStarting && !n.reconcile[t.id()] {
			continue
		}
		silent := p.delivered && p.state == partStarting && n.syncs-p.deliveredSync >= 2 &&
			now.Sub(p.deliveredAt) >= ag.startGrace()
		if n.reconcile[t.id()] || silent {
			lost = append(lost, t)
		}
	}
	n.reconcile = nil
	joined, at, fence := n.joinedBy, n.joinedAt, n.joinedFence
	n.joinedBy, n.joinedFence = 0, time.Time{}
	for _, t := range lost {
		if err := ag.loseAttempt(ctx, t, notRunReason(n.rec.Name, t.rec.Attempt, joined, at, fence), store.CauseNotRun); err != nil {
			return err
		}
	}
	return nil
}
