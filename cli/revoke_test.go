package cli

import (
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
