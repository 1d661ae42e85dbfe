package master

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// RecoveredNote is the note of an API token that RecoverAdmin issued.
const RecoveredNote = "recovered admin token"

// Recovery is what RecoverAdmin did.
type Recovery struct {
	Token   string // the new API token's secret
	ID      int64  // its credential's ID
	Created bool   // the user was made, no enabled admin being left
	Revoked int    // the user's earlier live API tokens revoked
}

// ErrRecoverRefused says that RecoverAdmin would not give the user a
// token: it does not exist while other admins do, or it is not an
// enabled admin.
var ErrRecoverRefused = errors.New("refused")

// RecoverAdmin gives admin name a new API token, on the master's host
// with the store opened directly (allot master recover-admin), for when
// every admin token is lost. It creates name as an admin only when the
// store has no enabled admin, so that it cannot make a second admin
// beside working ones; a user that exists must be an enabled admin,
// since recovery is not a way to promote or re-enable anyone. With
// revokeOld it revokes the user's other live API tokens (a lost token
// may have been found by someone). actor (e.g. "local:root") and what it
// did go to the audit log, which the master's own API shows.
func RecoverAdmin(ctx context.Context, st store.Store, name string, revokeOld bool, actor string, now time.Time) (Recovery, error) {
	var r Recovery
	users, err := st.Users(ctx)
	if err != nil {
		return r, err
	}
	var admins []string
	var found *store.User
	for i, u := range users {
		if u.Name == name {
			found = &users[i]
		}
		if u.Admin && !u.Disabled {
			admins = append(admins, u.Name)
		}
	}
	switch {
	case found == nil && len(admins) > 0:
		return r, fmt.Errorf("%w: no user %q; the enabled admins are %s: give --user one of them", ErrRecoverRefused, name, strings.Join(admins, ", "))
	case found == nil:
		if _, err := st.CreateUser(ctx, store.User{Name: name, Admin: true, CreatedAt: now}); err != nil {
			return r, err
		}
		r.Created = true
	case !found.Admin:
		return r, fmt.Errorf("%w: user %q is not an admin (enabled admins: %s): give --user an admin; recovery does not promote users", ErrRecoverRefused, name, orNone(admins))
	case found.Disabled:
		return r, fmt.Errorf("%w: admin %q is disabled (enabled admins: %s): give --user an enabled admin; recovery does not re-enable users", ErrRecoverRefused, name, orNone(admins))
	}
	if revokeOld {
		if r.Revoked, err = revokeUserTokens(ctx, st, name, now); err != nil {
			return r, err
		}
	}
	secret, hash, err := auth.NewSecret(auth.PrefixUser)
	if err != nil {
		return r, err
	}
	c, err := st.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: name, Hash: hash, Note: RecoveredNote,
		CreatedBy: name, CreatedAt: now})
	if err != nil {
		return r, err
	}
	r.Token, r.ID = secret, c.ID
	detail := fmt.Sprintf("new API token %d", c.ID)
	if r.Created {
		detail = "created the admin (no enabled admin was left); " + detail
	}
	if revokeOld {
		detail += fmt.Sprintf("; revoked %d earlier token(s)", r.Revoked)
	}
	err = st.AppendAudit(ctx, store.AuditEntry{At: now, Actor: actor, Action: "allot master recover-admin", Target: "user " + name,
		Status: 201, Detail: detail})
	if err != nil {
		return r, fmt.Errorf("the token was made, but the audit log was not written: %w", err)
	}
	return r, nil
}

// revokeUserTokens revokes user name's live API tokens, returning how many.
func revokeUserTokens(ctx context.Context, st store.Store, name string, now time.Time) (int, error) {
	old, err := st.Credentials(ctx, store.CredUser, name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range old {
		if c.Live(now) {
			if err := st.RevokeCredential(ctx, c.ID, now); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
