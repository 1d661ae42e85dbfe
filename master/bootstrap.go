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
// every start, revoking the ones its earlier starts made (note). It is
// one transaction: a user made without its token would make the next
// first start find a user, and hand no one the keys.
func BootstrapAdmin(ctx context.Context, st store.Store, name, note string, onlyIfEmpty bool, now time.Time) (string, error) {
	secret, hash, err := auth.NewSecret(auth.PrefixUser)
	if err != nil {
		return "", err
	}
	made := false
	err = st.Update(ctx, func(tx store.Tx) error {
		if onlyIfEmpty {
			n, err := tx.CountUsers(ctx)
			if err != nil || n > 0 {
				return err
			}
		}
		if err := ensureAdmin(ctx, tx, name, now); err != nil {
			return err
		}
		old, err := tx.Credentials(ctx, store.CredUser, name)
		if err != nil {
			return err
		}
		for _, c := range old {
			if c.Note == note && c.RevokedAt.IsZero() {
				if err := tx.RevokeCredential(ctx, c.ID, now); err != nil {
					return err
				}
			}
		}
		_, err = tx.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: name, Hash: hash, Note: note,
			CreatedBy: name, CreatedAt: now})
		made = err == nil
		return err
	})
	if err != nil || !made {
		return "", err
	}
	return secret, nil
}

// ensureAdmin makes user name an admin when it does not exist, and
// refuses one that is not an enabled admin.
func ensureAdmin(ctx context.Context, tx store.Tx, name string, now time.Time) error {
	u, err := tx.User(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, err := tx.CreateUser(ctx, store.User{Name: name, Admin: true, CreatedAt: now})
		return err
	case err != nil:
		return err
	case !u.Admin || u.Disabled:
		return fmt.Errorf("user %q exists but is not an enabled admin: choose another name", name)
	}
	return nil
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
// did go to the audit log, which the master's own API shows. All of it
// is one transaction: a token with no audit entry saying who made it,
// or an admin made with no token, is never left behind.
func RecoverAdmin(ctx context.Context, st store.Store, name string, revokeOld bool, actor string, now time.Time) (Recovery, error) {
	secret, hash, err := auth.NewSecret(auth.PrefixUser)
	if err != nil {
		return Recovery{}, err
	}
	var r Recovery
	err = st.Update(ctx, func(tx store.Tx) error {
		created, err := recoverable(ctx, tx, name)
		if err != nil {
			return err
		}
		r = Recovery{Created: created}
		if created {
			if _, err := tx.CreateUser(ctx, store.User{Name: name, Admin: true, CreatedAt: now}); err != nil {
				return err
			}
		}
		if revokeOld {
			if r.Revoked, err = revokeUserTokens(ctx, tx, name, now); err != nil {
				return err
			}
		}
		c, err := tx.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: name, Hash: hash, Note: RecoveredNote,
			CreatedBy: name, CreatedAt: now})
		if err != nil {
			return err
		}
		r.ID = c.ID
		detail := fmt.Sprintf("new API token %d", c.ID)
		if r.Created {
			detail = "created the admin (no enabled admin was left); " + detail
		}
		if revokeOld {
			detail += fmt.Sprintf("; revoked %d earlier token(s)", r.Revoked)
		}
		if err := tx.AppendAudit(ctx, store.AuditEntry{At: now, Actor: actor, Action: "allot master recover-admin",
			Target: "user " + name, Status: 201, Detail: detail}); err != nil {
			return fmt.Errorf("write the audit entry, so nothing was done: %w", err)
		}
		return nil
	})
	if err != nil {
		return Recovery{}, err
	}
	r.Token = secret
	return r, nil
}

// recoverable says whether name may be given a token, and whether it
// must be made first: refused (ErrRecoverRefused) when it does not exist
// while other admins do, or is not an enabled admin.
func recoverable(ctx context.Context, tx store.Tx, name string) (create bool, err error) {
	users, err := tx.Users(ctx)
	if err != nil {
		return false, err
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
		return false, fmt.Errorf("%w: no user %q; the enabled admins are %s: give --user one of them", ErrRecoverRefused, name, strings.Join(admins, ", "))
	case found == nil:
		return true, nil
	case !found.Admin:
		return false, fmt.Errorf("%w: user %q is not an admin (enabled admins: %s): give --user an admin; recovery does not promote users", ErrRecoverRefused, name, orNone(admins))
	case found.Disabled:
		return false, fmt.Errorf("%w: admin %q is disabled (enabled admins: %s): give --user an enabled admin; recovery does not re-enable users", ErrRecoverRefused, name, orNone(admins))
	}
	return false, nil
}

// revokeUserTokens revokes user name's live API tokens, returning how many.
func revokeUserTokens(ctx context.Context, tx store.Tx, name string, now time.Time) (int, error) {
	old, err := tx.Credentials(ctx, store.CredUser, name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range old {
		if c.Live(now) {
			if err := tx.RevokeCredential(ctx, c.ID, now); err != nil {
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
