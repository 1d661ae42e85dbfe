package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestRevokeMessage: allot token revoke says when nothing changed (the
// token was revoked before) and warns when the token was the command's
// own.
func TestRevokeMessage(t *testing.T) {
	at := time.Date(2026, 11, 28, 15, 2, 48, 0, time.UTC)
	cases := []struct {
		name string
		rt   api.RevokedToken
		want string
	}{
		{"a revoke", api.RevokedToken{Token: api.Token{ID: 2, RevokedAt: &at}}, "Revoked token 2"},
		{"again", api.RevokedToken{Token: api.Token{ID: 2, RevokedAt: &at}, AlreadyRevoked: true}, "Token 2 was already revoked at "},
		{"one's own", api.RevokedToken{Token: api.Token{ID: 2, RevokedAt: &at}, Yours: true},
			"It is the token this command used: the next command is refused until you sign in with another (allot login)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := revokeMessage(2, tc.rt); !strings.Contains(got, tc.want) {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
}

// TestTokenListRevoked: allot token list says when a revoked token was
// revoked, "-" for a live one.
func TestTokenListRevoked(t *testing.T) {
	fixClock(t)
	at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	if err := printTokens(&b, []api.Token{
		{ID: 1, Kind: api.TokenUser, Subject: "ana", CreatedAt: at},
		{ID: 2, Kind: api.TokenUser, Subject: "ana", CreatedAt: at, RevokedAt: &at},
	}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	cases := []struct {
		name, line, want string
	}{
		{"the header", lines[0], "REVOKED"},
		{"a live token", lines[1], "live"},
		{"a revoked token", lines[2], "revoked"},
		{"its time", lines[2], formatTime(&at)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.line, tc.want) {
				t.Fatalf("%q, want %q", tc.line, tc.want)
			}
		})
	}
	if strings.HasSuffix(strings.TrimSpace(lines[1]), formatTime(&at)) {
		t.Fatalf("a live token shows a revoke time: %q", lines[1])
	}
}
