package client

import (
	"context"
	"fmt"
	"net/url"

	"github.com/allot-sched/allot/api"
)

// Identity is the client's side of users, tokens and the audit log:
// their calls, apart from the jobs' and the cluster's.
type Identity struct{ tr *transport }

// Identity returns the calls on users, tokens and the audit log, over
// the client's connection and token.
func (c *Client) Identity() Identity { return Identity{&c.tr} }

// Whoami returns who the client's token belongs to.
func (c Identity) Whoami(ctx context.Context) (api.Whoami, error) {
	var out api.Whoami
	return out, c.tr.do(ctx, "GET", "/whoami", nil, nil, &out)
}

// Users lists the cluster's users (admins only).
func (c Identity) Users(ctx context.Context) ([]api.User, error) {
	var out []api.User
	return out, c.tr.do(ctx, "GET", "/users", nil, nil, &out)
}

// CreateUser creates a user (admins only).
func (c Identity) CreateUser(ctx context.Context, u api.NewUser) (api.User, error) {
	var out api.User
	return out, c.tr.do(ctx, "POST", "/users", nil, u, &out)
}

// UpdateUser disables, enables or changes the roles of a user.
func (c Identity) UpdateUser(ctx context.Context, name string, u api.UserUpdate) (api.User, error) {
	var out api.User
	return out, c.tr.do(ctx, "PATCH", "/users/"+url.PathEscape(name), nil, u, &out)
}

// Tokens lists credentials, optionally of one kind and subject.
func (c Identity) Tokens(ctx context.Context, kind, subject string) ([]api.Token, error) {
	q := url.Values{}
	if kind != "" {
		q.Set("kind", kind)
	}
	if subject != "" {
		q.Set("subject", subject)
	}
	var out []api.Token
	return out, c.tr.do(ctx, "GET", "/tokens", q, nil, &out)
}

// CreateToken makes a user's API token or a join token; the secret in the
// answer is shown only this once.
func (c Identity) CreateToken(ctx context.Context, t api.NewToken) (api.CreatedToken, error) {
	var out api.CreatedToken
	return out, c.tr.do(ctx, "POST", "/tokens", nil, t, &out)
}

// RevokeToken revokes a credential by its ID.
func (c Identity) RevokeToken(ctx context.Context, id int64) (api.RevokedToken, error) {
	var out api.RevokedToken
	err := c.tr.do(ctx, "POST", fmt.Sprintf("/tokens/%d/revoke", id), nil, nil, &out)
	return out, err
}

// AuditQuery selects audit entries: those after seq After, of Actor, in
// Window (either bound may be left out), the oldest Limit or the newest
// Last (listed oldest first), not both; zero leaves each out.
type AuditQuery struct {
	After       int64
	Actor       string
	Limit, Last int
	Window
}

// Audit reads the audit log entries q selects (admins only).
func (c Identity) Audit(ctx context.Context, q AuditQuery) ([]api.AuditEntry, error) {
	v := q.Window.values()
	if q.After > 0 {
		v.Set("after", fmt.Sprint(q.After))
	}
	if q.Actor != "" {
		v.Set("actor", q.Actor)
	}
	if q.Limit > 0 {
		v.Set("limit", fmt.Sprint(q.Limit))
	}
	if q.Last > 0 {
		v.Set("last", fmt.Sprint(q.Last))
	}
	var out []api.AuditEntry
	return out, c.tr.do(ctx, "GET", "/audit", v, nil, &out)
}
