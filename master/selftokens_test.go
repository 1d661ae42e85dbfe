package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestOwnTokens: a user who is not an admin makes, lists and revokes its
// own API tokens; another user's tokens, join tokens and nodes'
// credentials stay the admins' (403 naming what it may do).
func TestOwnTokens(t *testing.T) {
	h := newHarness(t)
	ana := h.as("ana", "lab=member")
	h.as("bo", "lab=member")
	h.agent("n1", 1)
	var mine api.CreatedToken
	if code := h.doAs(ana, "POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenUser, Note: "ci"}, &mine); code != 201 ||
		mine.Token.Subject != "ana" {
		t.Fatalf("ana's own token: %d %+v", code, mine.Token)
	}
	var all []api.Token
	h.do("GET", "/api/v1/tokens", nil, &all)
	var boTok, nodeTok int64
	for _, tk := range all {
		switch {
		case tk.Kind == api.TokenUser && tk.Subject == "bo":
			boTok = tk.ID
		case tk.Kind == api.TokenNode:
			nodeTok = tk.ID
		}
	}
	cases := []struct {
		name, method, path string
		body               any
		status             int
		check              func(t *testing.T, body string)
	}{
		{"list: her own only", "GET", "/api/v1/tokens", nil, 200, func(t *testing.T, body string) {
			if strings.Contains(body, `"subject":"bo"`) || strings.Contains(body, `"kind":"node"`) ||
				strings.Count(body, `"subject":"ana"`) != 2 {
				t.Fatalf("ana's listing %s", body)
			}
		}},
		{"list another's", "GET", "/api/v1/tokens?subject=bo", nil, 403, nil},
		{"list join tokens", "GET", "/api/v1/tokens?kind=join", nil, 403, nil},
		{"create for another", "POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenUser, User: "bo"}, 403, nil},
		{"create a join token", "POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenJoin}, 403, nil},
		{"revoke another's", "POST", fmt.Sprintf("/api/v1/tokens/%d/revoke", boTok), nil, 403, nil},
		{"revoke a node's", "POST", fmt.Sprintf("/api/v1/tokens/%d/revoke", nodeTok), nil, 403, nil},
		{"revoke an unknown one", "POST", "/api/v1/tokens/999/revoke", nil, 403, nil},
		{"revoke her own", "POST", fmt.Sprintf("/api/v1/tokens/%d/revoke", mine.Token.ID), nil, 200, func(t *testing.T, body string) {
			if !strings.Contains(body, `"revoked_at"`) {
				t.Fatalf("reply %s", body)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw jsonRaw
			code := h.doAs(ana, tc.method, tc.path, tc.body, &raw)
			if code != tc.status {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, code, raw, tc.status)
			}
			if code == 403 && !strings.Contains(string(raw), "you may make, list and revoke your own API tokens") {
				t.Fatalf("refusal %s", raw)
			}
			if tc.check != nil {
				tc.check(t, string(raw))
			}
		})
	}
}

// jsonRaw keeps an answer's JSON as it came.
type jsonRaw []byte

func (j *jsonRaw) UnmarshalJSON(b []byte) error { *j = append((*j)[:0], b...); return nil }
