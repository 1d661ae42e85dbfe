package master

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// TestRecoverAdmin: allot master recover-admin's rules, on SQLite and
// PostgreSQL: a token for an enabled admin, the admin made only when no
// enabled admin is left, refusals naming what is wrong, earlier tokens
// kept unless revoked, and an audit entry each time.
func TestRecoverAdmin(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { recoverAdminCases(t, false) })
	t.Run("postgres", func(t *testing.T) { recoverAdminCases(t, true) })
}

func recoverAdminCases(t *testing.T, postgres bool) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		users     []store.User
		user      string
		revokeOld bool
		wantErr   string // "" for success
		created   bool
		revoked   int
	}{
		{name: "no users: the admin is made", user: "admin", created: true},
		{name: "no admin left: the admin is made", users: []store.User{{Name: "bob"}, {Name: "old", Admin: true, Disabled: true}},
			user: "admin", created: true},
		{name: "existing admin", users: []store.User{{Name: "alice", Admin: true}}, user: "alice"},
		{name: "existing admin, old tokens revoked", users: []store.User{{Name: "alice", Admin: true}}, user: "alice",
			revokeOld: true, revoked: 1},
		{name: "unknown user beside admins", users: []store.User{{Name: "alice", Admin: true}, {Name: "carl", Admin: true}},
			user: "admin", wantErr: `no user "admin"; the enabled admins are alice, carl: give --user one of them`},
		{name: "not an admin", users: []store.User{{Name: "alice", Admin: true}, {Name: "bob"}}, user: "bob",
			wantErr: `user "bob" is not an admin (enabled admins: alice)`},
		{name: "disabled admin", users: []store.User{{Name: "old", Admin: true, Disabled: true}}, user: "old",
			wantErr: `admin "old" is disabled (enabled admins: none)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			d := ""
			if postgres {
				d = pgtest.DSN(t) // a schema of the case's own
			}
			st, err := store.Open(ctx, d, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var old string
			for _, u := range c.users {
				u.CreatedAt = now
				if _, err := st.CreateUser(ctx, u); err != nil {
					t.Fatal(err)
				}
				if u.Disabled {
					if err := st.SetUserDisabled(ctx, u.Name, true); err != nil {
						t.Fatal(err)
					}
				}
				if u.Name == c.user {
					if old, err = newCredential(ctx, st, store.Credential{Kind: store.CredUser, Subject: u.Name, CreatedBy: u.Name,
						CreatedAt: now}, auth.PrefixUser); err != nil {
						t.Fatal(err)
					}
				}
			}
			r, err := RecoverAdmin(ctx, st, c.user, c.revokeOld, "local:root", now)
			if c.wantErr != "" {
				if !errors.Is(err, ErrRecoverRefused) || !strings.Contains(err.Error(), c.wantErr) || r.Token != "" {
					t.Fatalf("err %v, token %q; want a refusal with %q", err, r.Token, c.wantErr)
				}
				if es, _ := st.Audit(ctx, store.AuditFilter{}); len(es) != 0 {
					t.Fatalf("a refusal wrote the audit log: %+v", es)
				}
				return
			}
			if err != nil || r.Created != c.created || r.Revoked != c.revoked {
				t.Fatalf("got %+v, %v; want created %v, revoked %d", r, err, c.created, c.revoked)
			}
			checkRecovered(t, st, c.user, r, old, c.revokeOld, now)
		})
	}
}

// checkRecovered checks the new token's user and credential, the old
// token's fate and the audit entry.
func checkRecovered(t *testing.T, st store.Store, name string, r Recovery, old string, revoked bool, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if u, err := st.User(ctx, name); err != nil || !u.Admin || u.Disabled {
		t.Fatalf("user %s: %+v, %v; want an enabled admin", name, u, err)
	}
	c, err := st.CredentialByHash(ctx, auth.Hash(r.Token))
	if err != nil || c.Subject != name || c.Kind != store.CredUser || !c.Live(now) || c.Note != RecoveredNote {
		t.Fatalf("new token's credential %+v, %v", c, err)
	}
	if old != "" {
		o, err := st.CredentialByHash(ctx, auth.Hash(old))
		if err != nil || o.Live(now) == revoked {
			t.Fatalf("old token %+v, %v; want live %v", o, err, !revoked)
		}
	}
	es, err := st.Audit(ctx, store.AuditFilter{})
	if err != nil || len(es) != 1 || es[0].Actor != "local:root" || es[0].Target != "user "+name ||
		es[0].Action != "allot master recover-admin" || !strings.Contains(es[0].Detail, "new API token") {
		t.Fatalf("audit %+v, %v", es, err)
	}
}
