package master

import (
	"net/http"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// markRevokedNode marks the 401 that refuses credential c, when c is a
// node credential that was revoked (a join token took its node's name
// over, or an admin revoked it), with api.CredentialHeader, so that the
// agent presenting it can tell the refusal for good from one it may
// outlast: it no longer holds the node, stops the attempts it runs there
// (which the master has ended, or ends, and may run elsewhere) and stops
// presenting the credential (agentd, disown.go). Revoked means revoked
// before it expired, as whyDead says.
func markRevokedNode(w http.ResponseWriter, c store.Credential) {
	if c.Kind != store.CredNode || c.RevokedAt.IsZero() || (!c.ExpiresAt.IsZero() && !c.RevokedAt.Before(c.ExpiresAt)) {
		return
	}
	w.Header().Set(api.CredentialHeader, api.CredentialRevoked)
}
