package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// Deleting a node (DELETE /nodes/{name}, allot node delete). The master
// forgets a node on which nothing runs; an agent that still runs is told
// at its next sync to register again, and does, with its credential, as a
// new node (trial o F19: "Deleted node c1", and c1 was back 10 ms
// later). An admin who removes a suspect host means to keep it out, as
// kubectl delete node plus revoking the kubelet's certificate does, so:
//
//   - the answer says when the node's agent was heard within the agent
//     timeout (it is alive and comes back), and names the commands that
//     keep it out: allot token revoke N for its credential, and for the
//     live join token that issued it, which the agent may hold too (an
//     agent refused its credential falls back to its join token, and a
//     deleted node's name is free for a join);
//   - ?revoke=true (allot node delete --revoke) revokes the node's
//     credentials in the transaction that deletes it, and the audit
//     detail says which. The agent's next request is refused as revoked
//     (api.CredentialHeader), and an agent so refused kills what it still
//     runs there at once (agentd/disown.go): orphans only, as the master
//     deletes no node where it runs a task.

// deletion is what a node's deletion did to its credentials.
type deletion struct {
	live    []int64 // node credentials left live
	revoked []int64 // node credentials revoked with the node
	joins   []int64 // live join tokens that issued the node's credentials
}

// handleDeleteNode forgets a node that runs nothing, and with
// ?revoke=true revokes its credentials.
func (ca *clusterAPI) handleDeleteNode(w http.ResponseWriter, r *http.Request) {
	name, ok := ca.adminNode(w, r, "deleting")
	if !ok {
		return
	}
	revoke, err := boolParam(r, "revoke")
	if err != nil {
		ca.fail(w, err)
		return
	}
	defer ca.m.betweenSettlings()()
	ca.m.lock()
	defer ca.m.unlock()
	n := ca.m.nodes[name]
	if n == nil {
		writeError(w, http.StatusNotFound, "name", "node %q was deleted", name)
		return
	}
	if held := ca.holders(n); len(held) > 0 {
		ca.fail(w, busyNode(n, held))
		return
	}
	ctx, now := r.Context(), ca.m.now()
	// The store keeps the deletion in the node history (the what-if
	// export's, whatif_deleted.go), with the node, in one transaction.
	var d deletion
	err = ca.m.st.Update(ctx, func(tx store.Tx) error {
		if err := tx.DeleteNode(ctx, name, now); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		d, err = deleteCredentials(ctx, tx, name, revoke, now)
		return err
	})
	if err != nil {
		ca.fail(w, err)
		return
	}
	// Forgotten before the agent is woken: its next request is judged by
	// the store, which refuses the revoked credential.
	ca.m.access.creds.forget(ofNode(name))
	audit := nodeDeleteDetail(n)
	if len(d.revoked) > 0 {
		audit += "; revoked node credential " + joinIDs(d.revoked)
	}
	noteAudit(ctx, "%s", audit)
	reply := api.DeletedNode{Name: name, Credentials: d.live, Revoked: d.revoked, JoinTokens: d.joins}
	seen, alive := agentHeard(n, now, agentTimeout(ca.m.cfg))
	if alive {
		s := seen.Seconds()
		reply.AgentSeenS = &s
	}
	reply.Note = deleteNote(d, revoke, seen, alive)
	delete(ca.m.nodes, name)
	ca.m.pub.markNode(n)
	ca.m.forgetFeasible()
	n.registered, n.commands = false, nil
	close(n.wake) // a held sync answers that the node must register again
	n.wake = make(chan struct{})
	ca.m.log.Info("node deleted", "node", name, "by", principalOf(r).Actor(), "revoked", d.revoked, "agent_alive", alive)
	ca.m.kick()
	ca.m.pub.publish()
	writeJSON(w, http.StatusOK, reply)
}

// busyNode is the refusal of a node on which tasks run (held, as
// JOB/TASK).
func busyNode(n *mnode, held []string) error {
	shown := held
	if len(shown) > maxListed {
		shown = shown[:maxListed]
	}
	todo := "drain it and wait for them to end, or kill them"
	if n.draining() {
		todo = "it is draining: wait for them to end (allot nodes shows it drained then), or kill them"
	}
	return &httpError{status: http.StatusConflict, field: "name", msg: fmt.Sprintf("node %s runs %s (%s): %s",
		n.rec.Name, plural.Count(len(held), "task"), strings.Join(shown, ", "), todo)}
}

// deleteCredentials finds node name's live credentials in tx, revokes
// them at now when revoke says so, and finds the live join tokens that
// issued them (CreatedBy "join:ID", admitNode).
func deleteCredentials(ctx context.Context, tx store.Tx, name string, revoke bool, now time.Time) (deletion, error) {
	var d deletion
	creds, err := tx.Credentials(ctx, store.CredNode, name)
	if err != nil {
		return d, err
	}
	issuers := map[int64]bool{}
	for _, c := range creds {
		if !c.Live(now) {
			continue
		}
		if revoke {
			d.revoked = append(d.revoked, c.ID)
		} else {
			d.live = append(d.live, c.ID)
		}
		if id, ok := strings.CutPrefix(c.CreatedBy, "join:"); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				issuers[n] = true
			}
		}
	}
	if revoke && len(d.revoked) > 0 {
		if err := tx.RevokeNodeCredentials(ctx, name, 0, now); err != nil {
			return d, err
		}
	}
	if len(issuers) == 0 {
		return d, nil
	}
	joins, err := tx.Credentials(ctx, store.CredJoin, "")
	if err != nil {
		return d, err
	}
	for _, j := range joins {
		if issuers[j.ID] && j.Live(now) {
			d.joins = append(d.joins, j.ID)
		}
	}
	return d, nil
}

// agentHeard says how long ago node n's agent was last heard, and
// whether that is recent enough (within lease, the agent timeout, or a
// sync held now) that it runs and will register again. Callers hold mu.
func agentHeard(n *mnode, now time.Time, lease time.Duration) (time.Duration, bool) {
	if n.seen.IsZero() {
		return 0, n.polling > 0
	}
	ago := max(now.Sub(n.seen), 0)
	return ago, n.polling > 0 || ago < lease
}

// deleteNote says what becomes of a deleted node's agent and what keeps
// it out: seen is when it was last heard, alive whether that was recent.
func deleteNote(d deletion, revoke bool, seen time.Duration, alive bool) string {
	var parts []string
	agent := "should its agent start again, it"
	if alive {
		agent = fmt.Sprintf("its agent (heard %s ago)", seen.Round(time.Second))
	}
	switch {
	case revoke && len(d.revoked) > 0:
		refused := "is refused from its next request on"
		if !alive {
			refused = "is refused"
		}
		parts = append(parts, fmt.Sprintf("Revoked its credential (token %s): %s %s, "+
			"and then kills at once, with no checkpoint grace, any task it still runs there (the master ran none there) "+
			"and sends nothing more.", joinIDs(d.revoked), agent, refused))
	case revoke:
		parts = append(parts, "It had no live credential to revoke.")
	case alive && len(d.live) > 0:
		parts = append(parts, fmt.Sprintf("%s registers again at its next sync, with its credential (token %s), "+
			"as a new node. To keep the host out, revoke the credential: %s "+
			"(allot node delete --revoke does both at once); or stop the agent, then delete the node again.",
			upperFirst(agent), joinIDs(d.live), revokeCommands(d.live)))
	case alive:
		parts = append(parts, fmt.Sprintf("%s registers again at its next sync, as a new node: stop it, then delete the node again.",
			upperFirst(agent)))
	case len(d.live) > 0:
		parts = append(parts, fmt.Sprintf("Its credential (token %s) is still live: %s registers as a new node; "+
			"%s keeps it out.", joinIDs(d.live), agent, revokeCommands(d.live)))
	}
	if len(d.joins) > 0 && (revoke || alive || len(d.live) > 0) {
		parts = append(parts, fmt.Sprintf("Join token %s, which issued the node's credential, is still live: "+
			"an agent that holds it joins again with it as a new node; revoke it too (%s) "+
			"unless other hosts still need it to join.", joinIDs(d.joins), revokeCommands(d.joins)))
	}
	return strings.Join(parts, " ")
}

// upperFirst capitalises a sentence's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// joinIDs lists token IDs as "3" or "3, 8".
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range slices.Sorted(slices.Values(ids)) {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}

// revokeCommands is the command, or commands, that revoke tokens ids.
func revokeCommands(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range slices.Sorted(slices.Values(ids)) {
		s[i] = "allot token revoke " + strconv.FormatInt(id, 10)
	}
	return strings.Join(s, " and ")
}
