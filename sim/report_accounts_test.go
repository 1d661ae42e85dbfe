package sim

import (
	"strings"
	"testing"
)

// TestWriteAccounts: an account with sub-accounts reads its subtree's
// usage, as allot usage gives it live, with its own beside it; a leaf
// its own.
func TestWriteAccounts(t *testing.T) {
	var b strings.Builder
	writeAccounts(&b, []AccountResult{
		{Name: "vision", Shares: 2, Usage: 0},
		{Name: "vision/alice", Parent: "vision", Shares: 1, Usage: 0.0007},
		{Name: "vision/bob", Parent: "vision", Shares: 1, Usage: 0.0002},
		{Name: "nlp", Shares: 1, Usage: 0.5},
	})
	want := "account      vision (shares 2): usage 0.0009 with its sub-accounts (own 0)\n" +
		"account      vision/alice (shares 1): usage 0.0007\n" +
		"account      vision/bob (shares 1): usage 0.0002\n" +
		"account      nlp (shares 1): usage 0.5\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
