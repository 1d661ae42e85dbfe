package master

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// BootstrapAdmin makes sure user name exists as an admin and returns a new
// API token for it. With onlyIfEmpty it does nothing (and returns "")
// when the store has any user: that is the first start of a master, which
// must hand someone the keys; allot dev instead asks for a fresh token on
// every start, revoking the ones its earlier starts made (note).
func BootstrapAdmin(ctx context.Context, st store.Store, name, note string, onlyIfEmpty bool, now time.Time) (string, error) {
	if onlyIfEmpty {
		n, err := st.CountUsers(ctx)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return "", nil
		}
	}
	u, err := st.User(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if _, err := st.CreateUser(ctx, store.User{Name: name, Admin: true, CreatedAt: now}); err != nil {
			return "", err
		}
	case err != nil:
		return "", err
	case !u.Admin || u.Disabled:
		return "", fmt.Errorf("user %q exists but is not an enabled admin: choose another name", name)
	}
	old, err := st.Credentials(ctx, store.CredUser, name)
	if err != nil {
		return "", err
	}
	for _, c := range old {
		if c.Note == note && c.RevokedAt.IsZero() {
			if err := st.RevokeCredential(ctx, c.ID, now); err != nil {
				return "", err
			}
		}
	}
	return newCredential(ctx, st, store.Credential{Kind: store.CredUser, Subject: name, Note: note, CreatedBy: name,
		CreatedAt: now}, auth.PrefixUser)
}

// NewJoinToken stores a join token made by creator, valid for ttl (0: no
// expiry), and returns its secret.
func NewJoinToken(ctx context.Context, st store.Store, creator, note string, ttl time.Duration, now time.Time) (string, error) {
	c := store.Credential{Kind: store.CredJoin, Subject: creator, Note: note, CreatedBy: creator, CreatedAt: now}
	if ttl > 0 {
		c.ExpiresAt = now.Add(ttl)
	}
	return newCredential(ctx, st, c, auth.PrefixJoin)
}

func newCredential(ctx context.Context, st store.Store, c store.Credential, prefix string) (string, error) {
	secret, hash, err := auth.NewSecret(prefix)
	if err != nil {
		return "", err
	}
	c.Hash = hash
	if _, err := st.CreateCredential(ctx, c); err != nil {
		return "", err
	}
	return secret, nil
}
