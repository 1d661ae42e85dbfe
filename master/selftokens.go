package master

import (
	"fmt"
	"net/http"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// A user's own API tokens. Any user may make, list and revoke its own API
// tokens, as Determined and Run:ai let a user manage their access tokens,
// so that a CI token or the revoke of a lost laptop's token needs no
// admin; what belongs to others (their tokens, join tokens, nodes'
// credentials) stays the admins'. A disabled user has no valid token to
// ask with.

// ownTokens narrows a token listing by a user who is not an admin to its
// own API tokens: kind becomes user, and the subject it returns the
// user; asking for others' is 403.
func ownTokens(p auth.Principal, kind *string, subject string) (string, error) {
	if p.Admin {
		return subject, nil
	}
	if (*kind != "" && *kind != api.TokenUser) || (subject != "" && subject != p.User) {
		return "", notOwnToken(p, "listing tokens other than your own API tokens")
	}
	*kind = api.TokenUser
	return p.User, nil
}

// ownNewToken makes a user token without a user the caller's own, and
// refuses a user who is not an admin a token for another user or a join
// token.
func ownNewToken(p auth.Principal, nt *api.NewToken) error {
	if nt.Kind == api.TokenUser && nt.User == "" {
		nt.User = p.User
	}
	if p.Admin || (nt.Kind == api.TokenUser && nt.User == p.User) {
		return nil
	}
	if nt.Kind == api.TokenJoin {
		return notOwnToken(p, "creating a join token")
	}
	return notOwnToken(p, fmt.Sprintf("creating an API token for user %q", nt.User))
}

// mayRevoke lets a user who is not an admin revoke its own API tokens
// only; whether token id (c, nil when unknown) exists is not said to it.
func mayRevoke(p auth.Principal, id int64, c *store.Credential) error {
	if p.Admin || (c != nil && c.Kind == store.CredUser && c.Subject == p.User) {
		return nil
	}
	return notOwnToken(p, fmt.Sprintf("revoking token %d, which is not one of your API tokens,", id))
}

func notOwnToken(p auth.Principal, what string) error {
	return &auth.Error{Status: http.StatusForbidden, Msg: fmt.Sprintf(
		"%s needs the admin role; %s is not an admin (you may make, list and revoke your own API tokens: "+
			"allot token create, allot token list, allot token revoke ID)", what, p.Actor())}
}
