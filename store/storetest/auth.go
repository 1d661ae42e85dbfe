package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

func testUsersAndRoles(t *testing.T, target Target) {
	s, ctx := open(t, target), ctxOf(t)
	alice := store.User{Name: "alice", CreatedAt: at(0), Roles: map[string]store.Role{"vision": store.RoleMember}}
	if _, err := s.CreateUser(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "root", Admin: true, CreatedAt: at(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "alice"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second alice: got %v, want a conflict", err)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "bob", Roles: map[string]store.Role{"x": "owner"}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad role: got %v, want invalid", err)
	}
	if err := s.SetRole(ctx, "alice", "nlp", store.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRole(ctx, "alice", "vision", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRole(ctx, "nobody", "nlp", store.RoleViewer); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("role of a missing user: got %v, want not found", err)
	}
	if err := s.SetUserDisabled(ctx, "alice", true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetUserDisabled(ctx, "nobody", true); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("disable a missing user: got %v, want not found", err)
	}
	got, err := s.User(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Disabled || got.Admin || len(got.Roles) != 1 || got.Roles["nlp"] != store.RoleViewer || !got.CreatedAt.Equal(at(0)) {
		t.Fatalf("alice = %+v", got)
	}
	users, err := s.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 2 || users[0].Name != "alice" || !users[1].Admin {
		t.Fatalf("users = %+v", users)
	}
	if n, err := s.CountUsers(ctx); err != nil || n != 2 {
		t.Fatalf("CountUsers = %d, %v", n, err)
	}
}

func testCredentials(t *testing.T, target Target) {
	s, ctx := open(t, target), ctxOf(t)
	hash := func(c byte) string { return strings.Repeat(string(c), 64) }
	user, err := s.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: "alice", Hash: hash('a'), Note: "laptop", CreatedAt: at(0)})
	if err != nil {
		t.Fatal(err)
	}
	join, err := s.CreateCredential(ctx, store.Credential{Kind: store.CredJoin, Subject: "root", Hash: hash('b'), ExpiresAt: at(3600e9)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: "bob", Hash: hash('a')}); err == nil {
		t.Fatal("a repeated hash was stored")
	}
	if _, err := s.CreateCredential(ctx, store.Credential{Kind: "root", Subject: "x", Hash: hash('c')}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad kind: got %v, want invalid", err)
	}
	n1, _ := s.CreateCredential(ctx, store.Credential{Kind: store.CredNode, Subject: "gpu-1", Hash: hash('d')})
	n2, _ := s.CreateCredential(ctx, store.Credential{Kind: store.CredNode, Subject: "gpu-1", Hash: hash('e')})
	if err := s.RevokeNodeCredentials(ctx, "gpu-1", n2.ID, at(5)); err != nil {
		t.Fatal(err)
	}
	c, err := s.CredentialByHash(ctx, hash('d'))
	if err != nil || c.ID != n1.ID || c.Live(at(6)) {
		t.Fatalf("old node credential = %+v, %v; want it revoked", c, err)
	}
	if c, err := s.CredentialByHash(ctx, hash('e')); err != nil || !c.Live(at(6)) {
		t.Fatalf("kept node credential = %+v, %v; want it live", c, err)
	}
	// A join token's takeover revokes the rest and says which; a node the
	// store does not have yet has no registration to date.
	n3, _ := s.CreateCredential(ctx, store.Credential{Kind: store.CredNode, Subject: "gpu-1", Hash: hash('f')})
	ids, err := s.TakeOverNode(ctx, "gpu-1", n3.ID, at(7))
	if err != nil || len(ids) != 1 || ids[0] != n2.ID {
		t.Fatalf("TakeOverNode revoked %v, %v; want [%d]", ids, err, n2.ID)
	}
	if c, err := s.CredentialByHash(ctx, hash('e')); err != nil || c.Live(at(8)) {
		t.Fatalf("credential taken over = %+v, %v; want it revoked", c, err)
	}
	if c, err := s.CredentialByHash(ctx, hash('b')); err != nil || !c.Live(at(0)) || c.Live(at(3601e9)) {
		t.Fatalf("join token = %+v, %v; want it live for an hour", c, err)
	}
	if _, err := s.CredentialByHash(ctx, hash('z')); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown hash: got %v, want not found", err)
	}
	if err := s.RevokeCredential(ctx, user.ID, at(9)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeCredential(ctx, 999, at(9)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke a missing credential: got %v, want not found", err)
	}
	users, err := s.Credentials(ctx, store.CredUser, "alice")
	if err != nil || len(users) != 1 || users[0].Note != "laptop" || !users[0].RevokedAt.Equal(at(9)) {
		t.Fatalf("alice's credentials = %+v, %v", users, err)
	}
	all, err := s.Credentials(ctx, "", "")
	if err != nil || len(all) != 5 || all[1].ID != join.ID {
		t.Fatalf("all credentials = %+v, %v", all, err)
	}
}

func testAudit(t *testing.T, target Target) {
	s, ctx := open(t, target), ctxOf(t)
	for i, actor := range []string{"user:alice", "user:root", "user:alice"} {
		if err := s.AppendAudit(ctx, store.AuditEntry{At: at(time.Duration(i) * time.Minute), Actor: actor, Action: "POST /api/v1/jobs",
			Status: 200 + i, RequestID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	es, err := s.Audit(ctx, store.AuditFilter{Actor: "user:alice"})
	if err != nil || len(es) != 2 || es[1].Status != 202 || !es[0].At.Equal(at(0)) {
		t.Fatalf("alice's audit = %+v, %v", es, err)
	}
	es, err = s.Audit(ctx, store.AuditFilter{After: es[0].Seq, Limit: 1})
	if err != nil || len(es) != 1 || es[0].Actor != "user:root" {
		t.Fatalf("audit after the first = %+v, %v", es, err)
	}
	newest := []struct {
		name  string
		f     store.AuditFilter
		wants []int // statuses, newest first
	}{
		{"newest two", store.AuditFilter{Newest: true, Limit: 2}, []int{202, 201}},
		{"newest of an actor", store.AuditFilter{Newest: true, Limit: 1, Actor: "user:alice"}, []int{202}},
		{"all, newest first", store.AuditFilter{Newest: true}, []int{202, 201, 200}},
		{"newest after the second", store.AuditFilter{Newest: true, Limit: 5, After: es[0].Seq}, []int{202}},
		{"since a time", store.AuditFilter{Newest: true, Since: at(time.Minute)}, []int{202, 201}},
		{"until a time", store.AuditFilter{Newest: true, Until: at(time.Minute)}, []int{200}},
		{"a window", store.AuditFilter{Newest: true, Since: at(30 * time.Second), Until: at(90 * time.Second)}, []int{201}},
	}
	for _, tc := range newest {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Audit(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var statuses []int
			for _, e := range got {
				statuses = append(statuses, e.Status)
			}
			if !slices.Equal(statuses, tc.wants) {
				t.Fatalf("statuses %v, want %v", statuses, tc.wants)
			}
		})
	}
}

// testAuthInUpdate: users, credentials and audit entries written in one
// Update are seen by its reads and commit or roll back together.
func testAuthInUpdate(t *testing.T, target Target) {
	s, ctx := open(t, target), ctxOf(t)
	hash := func(c byte) string { return strings.Repeat(string(c), 64) }
	old, err := s.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: "root", Hash: hash('o'), CreatedAt: at(0)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		fail bool
		hash string
	}{
		{name: "fn fails: nothing is written", fail: true, hash: hash('f')},
		{name: "fn succeeds: everything is written", hash: hash('n')},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Update(ctx, func(tx store.Tx) error {
				return writeAuth(ctx, tx, old.ID, c.hash, c.fail)
			})
			if (err != nil) != c.fail {
				t.Fatalf("Update: %v, want failure %v", err, c.fail)
			}
			_, uerr := s.User(ctx, "root")
			_, cerr := s.CredentialByHash(ctx, c.hash)
			o, err := s.CredentialByHash(ctx, hash('o'))
			if err != nil {
				t.Fatal(err)
			}
			es, err := s.Audit(ctx, store.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if (uerr == nil) == c.fail || (cerr == nil) == c.fail || o.Live(at(2)) != c.fail || (len(es) == 1) == c.fail {
				t.Fatalf("after the Update: user %v, new credential %v, old one live %v, audit %+v; want all written %v",
					uerr, cerr, o.Live(at(2)), es, !c.fail)
			}
		})
	}
}

// writeAuth makes user root, revokes credential old, makes one of hash
// and appends an audit entry in tx, checking that tx reads them back,
// and fails at the end when fail is set.
func writeAuth(ctx context.Context, tx store.Tx, old int64, hash string, fail bool) error {
	if _, err := tx.CreateUser(ctx, store.User{Name: "root", Admin: true, CreatedAt: at(1)}); err != nil {
		return err
	}
	if err := tx.RevokeCredential(ctx, old, at(1)); err != nil {
		return err
	}
	if _, err := tx.CreateCredential(ctx, store.Credential{Kind: store.CredUser, Subject: "root", Hash: hash, CreatedAt: at(1)}); err != nil {
		return err
	}
	if err := tx.AppendAudit(ctx, store.AuditEntry{At: at(1), Actor: "local:root", Action: "recover"}); err != nil {
		return err
	}
	if n, err := tx.CountUsers(ctx); err != nil || n != 1 {
		return fmt.Errorf("users in the transaction: %d, %v; want 1", n, err)
	}
	if cs, err := tx.Credentials(ctx, store.CredUser, "root"); err != nil || len(cs) != 2 || cs[0].Live(at(2)) {
		return fmt.Errorf("credentials in the transaction: %+v, %v; want the old one revoked and a new one", cs, err)
	}
	if es, err := tx.Audit(ctx, store.AuditFilter{}); err != nil || len(es) != 1 {
		return fmt.Errorf("audit in the transaction: %+v, %v; want one entry", es, err)
	}
	if fail {
		return errors.New("the caller gave up")
	}
	return nil
}
