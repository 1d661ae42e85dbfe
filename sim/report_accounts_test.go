package sim

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/metrics"
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
	}, nil)
	want := "account      vision (shares 2): usage 0.0009 with its sub-accounts (own 0)\n" +
		"account      vision/alice (shares 1): usage 0.0007\n" +
		"account      vision/bob (shares 1): usage 0.0002\n" +
		"account      nlp (shares 1): usage 0.5\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteAccountsFairness: an account of the accounts' fairness reads
// the slot-hours its subtree received and was entitled to, and the ratio;
// one without (no demand in the run) reads its usage only.
func TestWriteAccountsFairness(t *testing.T) {
	var b strings.Builder
	writeAccounts(&b, []AccountResult{
		{Name: "physics", Shares: 60, Usage: 0.1},
		{Name: "biology", Shares: 40},
	}, []metrics.AccountSummary{{Name: "physics", SlotHours: 128.267, EntitledSlotHours: 188, ShareRatio: 0.6823, Charged: true}})
	want := "account      physics (shares 60): usage 0.1; received 128.27 slot-hours of 188 entitled (0.6823)\n" +
		"account      biology (shares 40): usage 0\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
