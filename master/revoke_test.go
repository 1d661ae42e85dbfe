package master

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestRevokeToken: the last live token of the last enabled admin is not
// revoked (409: no admin could be had back without stopping the master);
// revoking the token of the request itself is allowed while another admin
// token is left, and the answer says it was yours; a second revoke
// answers already_revoked with the first time and audits no revocation.
func TestRevokeToken(t *testing.T) {
	h := newHarness(t)
	h.as("ana", "lab=member")
	tokenOf := func(user string) int64 {
		t.Helper()
		var ts []api.Token
		if code := h.do("GET", "/api/v1/tokens?kind=user&subject="+user, nil, &ts); code != 200 || len(ts) == 0 {
			t.Fatalf("tokens of %s: %d %+v", user, code, ts)
		}
		return ts[len(ts)-1].ID
	}
	anaID, rootID := tokenOf("ana"), tokenOf("root")
	// A disabled admin's live token is no way back in.
	if _, err := h.st.CreateUser(h.ctx, store.User{Name: "ops", Admin: true, CreatedAt: h.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := newCredential(h.ctx, h.st, store.Credential{Kind: store.CredUser, Subject: "ops", CreatedAt: h.clock.Now()}, "allot_u_"); err != nil {
		t.Fatal(err)
	}
	if code := h.do("PATCH", "/api/v1/users/ops", `{"disabled": true}`, nil); code != 200 {
		t.Fatalf("disable ops: %d", code)
	}
	var spare api.CreatedToken
	revoke := func(token string, id int64) (int, api.RevokedToken, string) {
		var raw json.RawMessage
		code := h.doAs(token, "POST", fmt.Sprintf("/api/v1/tokens/%d/revoke", id), nil, &raw)
		var rt api.RevokedToken
		var e api.Error
		if code == 200 {
			if err := json.Unmarshal(raw, &rt); err != nil {
				t.Fatal(err)
			}
		} else if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		return code, rt, e.Error
	}
	cases := []struct {
		name   string
		token  func() string
		id     func() int64
		status int
		check  func(t *testing.T, rt api.RevokedToken, msg string)
	}{
		{"another user's token", func() string { return h.admin }, func() int64 { return anaID }, 200,
			func(t *testing.T, rt api.RevokedToken, _ string) {
				if rt.AlreadyRevoked || rt.Yours || rt.Token.RevokedAt == nil {
					t.Fatalf("reply %+v", rt)
				}
				if e := h.newestAudit(fmt.Sprintf("POST /api/v1/tokens/%d/revoke", anaID)); !strings.HasPrefix(e.Detail, "revoked token") {
					t.Fatalf("audit detail %q", e.Detail)
				}
			}},
		{"the same token again", func() string { return h.admin }, func() int64 { return anaID }, 200,
			func(t *testing.T, rt api.RevokedToken, _ string) {
				if !rt.AlreadyRevoked || rt.Token.RevokedAt == nil {
					t.Fatalf("reply %+v, want already_revoked", rt)
				}
				e := h.newestAudit(fmt.Sprintf("POST /api/v1/tokens/%d/revoke", anaID))
				if !strings.Contains(e.Detail, "was already revoked at") || strings.HasPrefix(e.Detail, "revoked") {
					t.Fatalf("audit detail %q, want already revoked, nothing changed", e.Detail)
				}
			}},
		{"the last admin's last token", func() string { return h.admin }, func() int64 { return rootID }, 409,
			func(t *testing.T, _ api.RevokedToken, msg string) {
				if !strings.Contains(msg, fmt.Sprintf("token %d is the last live token of an enabled admin (root)", rootID)) ||
					!strings.Contains(msg, "allot token create --user root") {
					t.Fatalf("refusal %q", msg)
				}
				if code := h.do("GET", "/api/v1/whoami", nil, nil); code != 200 {
					t.Fatalf("the admin's token after the refusal: %d", code)
				}
			}},
		{"one's own token with a spare left", func() string {
			if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenUser, User: "root", Note: "spare"}, &spare); code != 201 {
				t.Fatalf("spare: %d", code)
			}
			return h.admin
		}, func() int64 { return rootID }, 200,
			func(t *testing.T, rt api.RevokedToken, _ string) {
				if !rt.Yours || rt.AlreadyRevoked {
					t.Fatalf("reply %+v, want yours", rt)
				}
				if code := h.doAs(h.admin, "GET", "/api/v1/whoami", nil, nil); code != http.StatusUnauthorized {
					t.Fatalf("the revoked token: %d, want 401", code)
				}
			}},
		{"the spare, now the last", func() string { return spare.Secret }, func() int64 { return spare.Token.ID }, 409, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := tc.token()
			code, rt, msg := revoke(token, tc.id())
			if code != tc.status {
				t.Fatalf("revoke: %d (%s), want %d", code, msg, tc.status)
			}
			if tc.check != nil {
				tc.check(t, rt, msg)
			}
		})
	}
}
