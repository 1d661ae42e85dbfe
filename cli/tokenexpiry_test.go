package cli

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestTokenExpiryShowsWhenFromNow: a new token's expiry is printed as
// the CLI prints times to come elsewhere (when): the date-time in the
// display zone with how long from now, so that it is not misread in
// another zone.
func TestTokenExpiryShowsWhenFromNow(t *testing.T) {
	fixClock(t)
	displayZone = time.FixedZone("CET", 3600)
	at := t0.Add(24 * time.Hour)
	cases := []struct {
		name string
		tok  api.Token
		want string
	}{
		{"join token", api.Token{ID: 3, Kind: api.TokenJoin, ExpiresAt: &at},
			"Created join token 3, valid until " + at.In(displayZone).Format("2006-01-02 15:04") + " (in " + humanDur(24*time.Hour) + ")."},
		{"no expiry", api.Token{ID: 4, Kind: api.TokenUser, Subject: "ann"}, "Created user token 4 for ann."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, _ := tokenMessage(api.CreatedToken{Token: tc.tok, Secret: "s"}, "http://m:8080", "")
			if got := msg[:len(tc.want)]; got != tc.want {
				t.Fatalf("message %q, want it to begin %q", msg, tc.want)
			}
		})
	}
}
