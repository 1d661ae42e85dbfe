package master

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// Revoking a token (POST /tokens/{id}/revoke). Two revokes are refused
// or told apart, since neither can be undone through the API:
//
//   - the last live token of the last enabled admin is not revoked (409):
//     with it gone no one could make a token or enable a user again until
//     the master is stopped for allot master recover-admin, as disabling
//     oneself is refused already;
//   - a token revoked before is answered as such (200, already_revoked),
//     with no second revocation in the audit log, as a kill of an ended
//     job is (the stored time stays the first revocation's).
//
// Revoking the token of the request itself is allowed, when another admin
// credential is left, and the answer says so (yours), for the CLI to warn
// that its next command will be refused.
//
// revokeMu makes the check and the revoke one step within this master,
// so that two admins revoking the last two admin tokens at once cannot
// both pass the check; revokes go through the active master.

// revokeToken revokes token id for the request r.
func (ac *access) revokeToken(r *http.Request, id int64) (api.RevokedToken, error) {
	ctx := r.Context()
	ac.revokeMu.Lock()
	defer ac.revokeMu.Unlock()
	cs, err := ac.m.st.Credentials(ctx, "", "")
	if err != nil {
		return api.RevokedToken{}, err
	}
	var c *store.Credential
	for i := range cs {
		if cs[i].ID == id {
			c = &cs[i]
		}
	}
	if err := mayRevoke(principalOf(r), id, c); err != nil { // selftokens.go
		return api.RevokedToken{}, err
	}
	if c == nil {
		return api.RevokedToken{}, &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("token %d does not exist", id)}
	}
	if !c.RevokedAt.IsZero() {
		noteAudit(ctx, "token %d was already revoked at %s: nothing changed", id, c.RevokedAt.UTC().Format(time.RFC3339))
		return api.RevokedToken{Token: tokenView(*c), AlreadyRevoked: true}, nil
	}
	if err := ac.lastAdminToken(ctx, *c, cs); err != nil {
		return api.RevokedToken{}, err
	}
	now := ac.m.now()
	if err := ac.m.st.RevokeCredential(ctx, id, now); err != nil {
		return api.RevokedToken{}, notFoundAs(err, "id", "token %d does not exist", id)
	}
	ac.creds.forget(ofToken(id))
	yours := infoOf(r).cred.ID == id
	detail := "revoked " + tokenDetail(*c)
	if yours {
		detail += "; the token of this request"
	}
	noteAudit(ctx, "%s", detail)
	c.RevokedAt = now
	return api.RevokedToken{Token: tokenView(*c), Yours: yours}, nil
}

// lastAdminToken refuses (409) revoking c when it is a live token of an
// enabled admin and no other enabled admin has a live token.
func (ac *access) lastAdminToken(ctx context.Context, c store.Credential, cs []store.Credential) error {
	if c.Kind != store.CredUser {
		return nil
	}
	users, err := ac.m.st.Users(ctx)
	if err != nil {
		return err
	}
	admins := map[string]bool{}
	for _, u := range users {
		if u.Admin && !u.Disabled {
			admins[u.Name] = true
		}
	}
	if !admins[c.Subject] {
		return nil
	}
	now := ac.m.now()
	for _, o := range cs {
		if o.ID != c.ID && o.Kind == store.CredUser && admins[o.Subject] && o.Live(now) {
			return nil
		}
	}
	return &httpError{status: http.StatusConflict, field: "id", msg: fmt.Sprintf(
		"token %d is the last live token of an enabled admin (%s): revoking it would leave no admin credential, "+
			"and getting one back needs the master stopped (allot master recover-admin); "+
			"make another admin token first (allot token create --user %s), then revoke this one",
		c.ID, c.Subject, c.Subject)}
}
