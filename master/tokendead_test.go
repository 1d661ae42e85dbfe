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
			cred := store.Credential{Kind: store.CredUser, Subject: "ann", Hash: auth.Hash(secret), CreatedAt: now.Add(-2 * time.Hour)}
			if c.expires != 0 {
				cred.ExpiresAt = now.Add(c.expires)
			}
			cred, err := h.st.CreateCredential(h.ctx, cred)
			if err != nil {
				t.Fatal(err)
			}
			if c.revoked != 0 {
				if err := h.st.RevokeCredential(h.ctx, cred.ID, now.Add(c.revoked)); err != nil {
					t.Fatal(err)
				}
			}
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
	now := h.clock.Now()
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
				cred := store.Credential{Kind: store.CredJoin, Subject: "root", Hash: auth.Hash(secret), CreatedAt: now.Add(-2 * time.Hour)}
				if c.expires != 0 {
					cred.ExpiresAt = now.Add(c.expires)
				}
				cred, err := h.st.CreateCredential(h.ctx, cred)
				if err != nil {
					t.Fatal(err)
				}
				if c.revoked != 0 {
					if err := h.st.RevokeCredential(h.ctx, cred.ID, now.Add(c.revoked)); err != nil {
						t.Fatal(err)
					}
				}
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
