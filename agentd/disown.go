package agentd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// Disowned: the master refuses the node's credential as revoked
// (api.CredentialHeader). A join token took the node's name over for
// another host (the way to replace a dead machine; it revokes the node's
// earlier credentials), or an admin revoked it. Either way this agent no
// longer holds the node: the master has ended, or ends, every attempt it
// ran here and may run them elsewhere, and it will never again take a
// report, a log line or a sync with that credential. So the agent stops
// its attempts (stopDisowned), sends nothing more with the credential, drops
// its reports and logs, and says once what an admin must do. A join token
// may still win the name back once no other agent holds it: the agent
// tries it every disownRetry while the master's answer leaves that open.
// docs/reliability.md, "A node name taken over".

// disownRetry spaces the tries of a disowned agent's join token (each one
// a refused request in the master's audit log while another agent holds
// the name). A variable for tests.
var disownRetry = time.Minute

// disownState is the agent's standing with the node. Guarded by
// Agent.mu.
type disownState struct {
	// revoked: the master refused the node's credential as revoked, and
	// no registration has succeeded since.
	revoked bool
	// stopped: the agent has stopped its attempts and said so.
	stopped bool
	// rejoin: a later try of the join token may succeed (the last answer
	// was that another agent holds the name, or none came); false when
	// there is no join token, or the master refused the token itself.
	rejoin bool
}

// disowner holds what an agent does once the master revoked its node's
// credential: a view of the Agent whose methods are not the Agent's, so
// that its method set stays small. Its state is the Agent's disown,
// guarded by Agent.mu.
type disowner struct {
	*Agent
}

// errDisowned is what a request the agent does not send says: the node
// is not the agent's any more.
var errDisowned = errors.New("the master revoked the node's credential: this agent no longer holds the node")

// revokedCredential reports whether err is the master's refusal of the
// node's credential as revoked.
func revokedCredential(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == http.StatusUnauthorized && se.credential == api.CredentialRevoked
}

// disowned reports whether the agent no longer holds the node.
func (a disowner) disowned() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.disown.revoked
}

// refusedRequest handles a request of the loops (syncs, logs) answered
// with a revoked credential: the node is unregistered, so that the sync
// loop, which alone registers, finds out what is left (a join token) and
// disowns the node.
func (a disowner) refusedRequest(err error) {
	if !revokedCredential(err) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registered {
		a.registered = false
		a.broadcast()
	}
}

// ownedAgainLocked clears the disowned state after a registration succeeded
// (with a join token: the name was free again); the caller holds mu.
func (a disowner) ownedAgainLocked() {
	if a.disown.revoked {
		a.log.Warn("joined the cluster again with the join token: this agent holds the node again")
	}
	a.disown = disownState{}
}

// afterRefusal takes the outcome of a registration that failed with err:
// revoked says the node's credential was refused as revoked in it, and
// joined that the join token was tried. Once the credential is known to
// be revoked, the agent no longer holds the node, whatever else the
// master answers (a join token refused, a name held by another agent, or
// no answer): it stops its attempts the first time.
func (a disowner) afterRefusal(err error, revoked, joined bool) {
	a.mu.Lock()
	if revoked {
		a.disown.revoked = true
	}
	if !a.disown.revoked {
		a.mu.Unlock()
		return
	}
	// A join token the master refuses itself (401, 403) or a registration
	// it refuses for what it is cannot succeed later; a held name (409)
	// may free up, and an unanswered try says nothing.
	a.disown.rejoin = a.cfg.JoinToken != "" && (!permanent(err) || isStatus(err, http.StatusConflict))
	first := !a.disown.stopped
	a.disown.stopped = true
	rejoin := a.disown.rejoin
	a.mu.Unlock()
	if !first {
		return
	}
	a.log.Error("the master revoked this node's credential: another agent took the node's name over with a join token "+
		"(or an admin revoked the credential), so this agent no longer holds the node; it stops the tasks it runs here, "+
		"which the master has ended and may run elsewhere, and sends the master nothing more with the credential. "+
		"To bring this machine back, start the agent again with a new join token (allot token create --join) "+
		"under a name no other agent holds; without a join token that can succeed, it exits",
		"err", err, "join_token_tried", joined, "retries_join_token_every", retryNote(rejoin))
	a.stopDisowned()
}

func retryNote(rejoin bool) string {
	if !rejoin {
		return "never"
	}
	return disownRetry.String()
}

// stopDisowned kills every attempt the agent runs, at once, and drops
// the reports not yet sent (the master ended those attempts, and takes
// nothing more from this agent). At once, with no checkpoint grace, as
// the master kills an attempt it has ended that an agent registering
// lists (GraceS 0): the master has ended each one, as lost, and may have
// run its task again elsewhere from its checkpoint directory, which a
// checkpoint the orphan wrote now would overwrite with a line of work
// the new attempt never had (trial o F13: a gang's next attempt resumed
// one rank from the orphan's later step).
func (a disowner) stopDisowned() {
	var stops []*attempt
	a.mu.Lock()
	for _, att := range a.tasks {
		if att.exited {
			continue
		}
		att.fenced = "stopped by the agent: the master revoked the node's credential"
		stops = append(stops, att)
	}
	a.reports = nil
	a.journal.save(nil)
	a.broadcast()
	a.mu.Unlock()
	slices.SortFunc(stops, func(x, y *attempt) int {
		if lessID(x.spec.ID(), y.spec.ID()) {
			return -1
		}
		return 1
	})
	for _, att := range stops {
		id := att.spec.ID().String()
		switch err := att.task.Kill(0); {
		case errors.Is(err, agent.ErrTaskDone):
		case err != nil:
			a.log.Warn("killing the attempt of a node this agent no longer holds: incomplete", "task", id, "err", err)
		default:
			a.log.Warn("killed the attempt: this agent no longer holds the node", "task", id)
		}
	}
}

// awaitRejoin waits, after a registration of a disowned agent, until its
// next try of the join token (disownRetry). It reports whether to try
// again: not when ctx is done, nor when no try can succeed (no join
// token, or one the master refuses for good), for which the agent exits
// with an error (errDisowned) rather than run on idle: a service manager
// then shows it failed, as a kubelet or slurmd that cannot authenticate
// exits (trial r R13).
func (a disowner) awaitRejoin(ctx context.Context) bool {
	a.mu.Lock()
	rejoin := a.disown.rejoin
	a.mu.Unlock()
	if !rejoin {
		return false
	}
	return sleep(ctx, disownRetry)
}

// errDisowned is the agent's exit error once the master revoked its
// node's credential and no join token can bring the node back.
func (a disowner) errDisowned() error {
	how := "it has no join token"
	if a.cfg.JoinToken != "" {
		how = "the master refused its join token"
	}
	return fmt.Errorf("the master revoked node %s's credential and %s, so this agent can never hold the node again: "+
		"start it with a new join token (an admin makes one with: allot token create --join)", a.cfg.Name, how)
}
