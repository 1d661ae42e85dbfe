package master

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// failingTxStore runs every Update with a Tx whose write named fail
// fails, as a full disk or a lost database would at that write.
type failingTxStore struct {
	store.Store
	fail string
}

var errInjected = errors.New("injected write failure")

func (s *failingTxStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error { return fn(failingTx{Tx: tx, fail: s.fail}) })
}

type failingTx struct {
	store.Tx
	fail string
}

func (t failingTx) CreateUser(ctx context.Context, u store.User) (store.User, error) {
	if t.fail == "CreateUser" {
		return store.User{}, errInjected
	}
	return t.Tx.CreateUser(ctx, u)
}

func (t failingTx) RevokeCredential(ctx context.Context, id int64, at time.Time) error {
	if t.fail == "RevokeCredential" {
		return errInjected
	}
	return t.Tx.RevokeCredential(ctx, id, at)
}

func (t failingTx) CreateCredential(ctx context.Context, c store.Credential) (store.Credential, error) {
	if t.fail == "CreateCredential" {
		return store.Credential{}, errInjected
	}
	return t.Tx.CreateCredential(ctx, c)
}

func (t failingTx) AppendAudit(ctx context.Context, e store.AuditEntry) error {
	if t.fail == "AppendAudit" {
		return errInjected
	}
	return t.Tx.AppendAudit(ctx, e)
}

// authState is what the store holds of users, user tokens and the audit
// log, to compare before and after a failed bootstrap.
type authState struct {
	Users []store.User
	Creds []store.Credential
	Audit []store.AuditEntry
}

func readAuthState(t *testing.T, st store.Store) authState {
	t.Helper()
	ctx := context.Background()
	var s authState
	var err error
	if s.Users, err = st.Users(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Creds, err = st.Credentials(ctx, store.CredUser, ""); err != nil {
		t.Fatal(err)
	}
	if s.Audit, err = st.Audit(ctx, store.AuditFilter{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAdminBootstrapIsOneTransaction: a write that fails part way
// through RecoverAdmin or BootstrapAdmin leaves the store as it was: no
// new user, no new token, no earlier token revoked, no audit entry.
func TestAdminBootstrapIsOneTransaction(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { bootstrapFailureCases(t, false) })
	t.Run("postgres", func(t *testing.T) { bootstrapFailureCases(t, true) })
}

func bootstrapFailureCases(t *testing.T, postgres bool) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	recoverWith := func(name string, revokeOld bool) func(context.Context, store.Store) error {
		return func(ctx context.Context, st store.Store) error {
			r, err := RecoverAdmin(ctx, st, name, revokeOld, "local:root", now)
			if r != (Recovery{}) {
				t.Errorf("a failed recovery returned %+v", r)
			}
			return err
		}
	}
	bootstrap := func(name, note string, onlyIfEmpty bool) func(context.Context, store.Store) error {
		return func(ctx context.Context, st store.Store) error {
			token, err := BootstrapAdmin(ctx, st, name, note, onlyIfEmpty, now)
			if token != "" {
				t.Errorf("a failed bootstrap returned token %q", token)
			}
			return err
		}
	}
	cases := []struct {
		name  string
		admin string // an admin there before, with a token noted "dev"
		fail  string // the Tx write that fails
		run   func(context.Context, store.Store) error
	}{
		{name: "recover, no admin left, the audit write fails", fail: "AppendAudit", run: recoverWith("admin", false)},
		{name: "recover, no admin left, the token write fails", fail: "CreateCredential", run: recoverWith("admin", false)},
		{name: "recover, no admin left, the user write fails", fail: "CreateUser", run: recoverWith("admin", false)},
		{name: "recover revoking old tokens, the audit write fails", admin: "alice", fail: "AppendAudit",
			run: recoverWith("alice", true)},
		{name: "recover revoking old tokens, the revocation fails", admin: "alice", fail: "RevokeCredential",
			run: recoverWith("alice", true)},
		{name: "first start, the token write fails", fail: "CreateCredential", run: bootstrap("admin", "first admin", true)},
		{name: "dev start, the token write fails", admin: "dev", fail: "CreateCredential", run: bootstrap("dev", "dev", false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			d := ""
			if postgres {
				d = pgtest.DSN(t)
			}
			st, err := store.Open(ctx, d, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if c.admin != "" {
				if _, err := st.CreateUser(ctx, store.User{Name: c.admin, Admin: true, CreatedAt: now}); err != nil {
					t.Fatal(err)
				}
				if _, err := newCredential(ctx, st, store.Credential{Kind: store.CredUser, Subject: c.admin, Note: "dev",
					CreatedBy: c.admin, CreatedAt: now}, auth.PrefixUser); err != nil {
					t.Fatal(err)
				}
			}
			before := readAuthState(t, st)
			if err := c.run(ctx, &failingTxStore{Store: st, fail: c.fail}); !errors.Is(err, errInjected) {
				t.Fatalf("err %v, want the injected failure", err)
			}
			if after := readAuthState(t, st); !reflect.DeepEqual(after, before) {
				t.Fatalf("the store changed:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}
