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

// Audit reads the audit log after seq (admins only), the oldest limit
// entries.
func (c Identity) Audit(ctx context.Context, after int64, actor string, limit int) ([]api.AuditEntry, error) {
	return auditLog(ctx, c.tr, after, actor, "limit", limit)
}

// AuditLast reads the newest last entries of the audit log after seq
// (admins only), listed oldest first.
func (c Identity) AuditLast(ctx context.Context, after int64, actor string, last int) ([]api.AuditEntry, error) {
	return auditLog(ctx, c.tr, after, actor, "last", last)
}

// auditLog reads the audit log through tr, count entries as param (limit
// or last) says.
func auditLog(ctx context.Context, tr *transport, after int64, actor, param string, count int) ([]api.AuditEntry, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", fmt.Sprint(after))
	}
	if actor != "" {
		q.Set("actor", actor)
	}
	if count > 0 {
		q.Set(param, fmt.Sprint(count))
	}
	var out []api.AuditEntry
	return out, tr.do(ctx, "GET", "/audit", q, nil, &out)
}
