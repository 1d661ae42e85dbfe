package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// TestDeadTokenSaysWhich: a token that is no longer live is refused with
// a 401 that says whether it was revoked or has expired, and when.
func TestDeadTokenSaysWhich(t *testing.T) {
	h := newHarness(t)
	h.as("ann")
	now := h.clock.Now()
	for i, c := range []struct {
		name             string
		expires, revoked time.Duration // from now; 0: never
		want             string
	}{
		{"expired", -time.Hour, 0, "expired at " + now.Add(-time.Hour).UTC().Format(time.RFC3339)},
		{"revoked", 0, -time.Minute, "was revoked at " + now.Add(-time.Minute).UTC().Format(time.RFC3339)},
		{"revoked before it expired", -time.Minute, -time.Hour, "was revoked at"},
		{"expired before it was revoked", -time.Hour, -time.Minute, "expired at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			secret := "dead-token-" + string(rune('a'+i))
			deadCredential(t, h, store.CredUser, "ann", secret, c.expires, c.revoked)
			var e api.Error
			if code := h.doAs(secret, "GET", "/api/v1/whoami", nil, &e); code != 401 || !strings.Contains(e.Error, c.want) {
				t.Fatalf("whoami: %d %q, want 401 saying %q", code, e.Error, c.want)
			}
		})
	}
}

// TestDeadJoinTokenAudited: a registration refused for an expired or
// revoked join token is audited as join-token:ID, as one made with a live
// join token is, not as anonymous; an unknown token stays anonymous.
func TestDeadJoinTokenAudited(t *testing.T) {
	h := newHarness(t)
	for i, c := range []struct {
		name             string
		expires, revoked time.Duration // from now; 0: never
		known            bool
	}{
		{"expired", -time.Hour, 0, true},
		{"revoked", 0, -time.Minute, true},
		{"unknown", 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			secret := "dead-join-" + string(rune('a'+i))
			want := "anonymous"
			if c.known {
				cred := deadCredential(t, h, store.CredJoin, "root", secret, c.expires, c.revoked)
				want = "join-token:" + strconv.FormatInt(cred.ID, 10)
			}
			var e api.Error
			if code := h.doAs(secret, "POST", "/api/v1/agents/register", api.Register{Name: "n" + c.name}, &e); code != 401 {
				t.Fatalf("register: %d %q, want 401", code, e.Error)
			}
			var all []api.AuditEntry
			if code := h.do("GET", "/api/v1/audit?last=1", nil, &all); code != 200 || len(all) != 1 {
				t.Fatalf("audit: %d, %d entries", code, len(all))
			}
			if got := all[0]; got.Actor != want || got.Status != 401 {
				t.Errorf("audit entry %+v: want actor %q, status 401", got, want)
			}
		})
	}
}

// deadCredential stores a credential of kind for subject with secret,
// made two hours ago, expiring and revoked at those offsets from now
// (0: never).
func deadCredential(t *testing.T, h *harness, kind store.CredentialKind, subject, secret string, expires, revoked time.Duration) store.Credential {
	t.Helper()
	now := h.clock.Now()
	cred := store.Credential{Kind: kind, Subject: subject, Hash: auth.Hash(secret), CreatedAt: now.Add(-2 * time.Hour)}
	if expires != 0 {
		cred.ExpiresAt = now.Add(expires)
	}
	cred, err := h.st.CreateCredential(h.ctx, cred)
	if err != nil {
		t.Fatal(err)
	}
	if revoked != 0 {
		if err := h.st.RevokeCredential(h.ctx, cred.ID, now.Add(revoked)); err != nil {
			t.Fatal(err)
		}
	}
	return cred
}
