package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// DevCredentialsFile is the dev cluster's own credentials file, in its
// data directory: the CLI's login to it, whatever the user's shared file
// holds (ALLOT_CONFIG=DATA/credentials.json).
const DevCredentialsFile = "credentials.json"

// devLogin is where allot dev left the CLI's login.
type devLogin struct {
	own    string // the dev cluster's own file, always written
	shared string // the user's credentials file
	// saved says whether the login went into shared too, as its current
	// master; else shared was left as it was, and current (if any) is the
	// master it still names, or err why it was not read.
	saved   bool
	current string
	err     error
}

// saveDevLogin records the dev cluster's login (its url and the admin's
// token) in the cluster's own file under data, and in the user's shared
// credentials file only where that replaces nothing but this cluster's
// earlier logins: the shared file names no current master, or one whose
// token this cluster issued (ours: a previous start's, revoked since), and
// holds no other master's login at url. A user logged in to another master
// stays logged in to it by default; the banner says how to reach the dev
// cluster instead. ours must say whether this cluster issued a token.
func saveDevLogin(url, token, data string, ours func(token string) bool) (devLogin, error) {
	key := normalAddr(url)
	l := devLogin{own: filepath.Join(data, DevCredentialsFile)}
	own := credentials{Current: key, Masters: map[string]masterAccount{key: {Token: token}}}
	if err := own.save(l.own); err != nil {
		return l, err
	}
	shared, path, err := loadCredentials()
	l.shared = path
	if err != nil {
		// The user's file is theirs to fix; the dev cluster's own holds
		// the login meanwhile.
		l.err = err
		return l, nil
	}
	mine := func(addr string) bool {
		acct, ok := shared.Masters[normalAddr(addr)]
		return ok && ours(acct.Token)
	}
	if acct, ok := shared.Masters[key]; ok && !ours(acct.Token) {
		l.current = shared.Current
		if l.current == "" {
			l.current = key
		}
		return l, nil
	}
	if shared.Current != "" && normalAddr(shared.Current) != key && !mine(shared.Current) {
		l.current = shared.Current
		return l, nil
	}
	shared.Masters[key] = masterAccount{Token: token}
	shared.Current = key
	if err := shared.save(path); err != nil {
		return l, err
	}
	l.saved = true
	return l, nil
}

// issuedHere says whether token is one of the dev admin's tokens of st
// (revoked or not): a login allot dev saved on an earlier start.
func issuedHere(ctx context.Context, st store.Store) func(token string) bool {
	return func(token string) bool {
		if token == "" {
			return false
		}
		c, err := st.CredentialByHash(ctx, auth.Hash(token))
		if err != nil {
			return false // not found, or unreadable: not known to be ours
		}
		return c.Kind == store.CredUser && c.Subject == devAdmin && c.Note == devNote
	}
}

// revokeDevJoins revokes the live join tokens of earlier allot dev starts
// on st (made by the dev admin, with its note), as BootstrapAdmin revokes
// their API tokens: each start used to leave one more join token live
// for 24 hours (trial 2026-11-29d D11). The agents it starts register
// with the new one; those of earlier starts hold their nodes'
// credentials, which this leaves alone.
func revokeDevJoins(ctx context.Context, st store.Store, now time.Time) error {
	return st.Update(ctx, func(tx store.Tx) error {
		old, err := tx.Credentials(ctx, store.CredJoin, devAdmin)
		if err != nil {
			return fmt.Errorf("read the earlier join tokens: %w", err)
		}
		for _, c := range old {
			if c.Note != devNote || !c.RevokedAt.IsZero() || c.CreatedBy != devAdmin {
				continue
			}
			if err := tx.RevokeCredential(ctx, c.ID, now); err != nil {
				return fmt.Errorf("revoke join token %d: %w", c.ID, err)
			}
		}
		return nil
	})
}
