package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestShareNotes: after the fair-share standing, allot usage says how
// usage decays and where the users shown rank, best first, ties shown
// as such (trial 29i I14); nothing without either; long lists are cut.
func TestShareNotes(t *testing.T) {
	const decay = "usage halves every 1h, applied at each 24h period's end, next in 3h 52m"
	ranked := func(acc string, rank, users int) api.Share {
		f := 1.0
		return api.Share{Account: acc, FairShare: &f, Rank: rank, Users: users}
	}
	var many []api.Share
	for i := range 10 {
		many = append(many, ranked("p/u"+string(rune('a'+i)), i+1, 10))
	}
	tests := []struct {
		name string
		u    api.Usage
		want string
	}{
		{"decay and ranks", api.Usage{Decay: decay, Shares: []api.Share{{Account: "vision"}, ranked("vision/ana", 3, 3),
			ranked("nlp/xx", 1, 3), ranked("nlp/yy", 1, 3)}},
			"\nUsage halves every 1h, applied at each 24h period's end, next in 3h 52m.\n" +
				"Fair-tree ranks (1 is best, of 3 users): 1 nlp/xx, nlp/yy (tied);\n3 vision/ana.\n"},
		// One user shown, as a member sees it (trial 2026-11-29j J5).
		{"a member's own rank", api.Usage{Shares: []api.Share{ranked("nlp/bo", 3, 4)}},
			"\nFair-tree ranks (1 is best, of 4 users): 3 nlp/bo.\n"},
		{"classic: decay only", api.Usage{Decay: decay, Shares: []api.Share{{Account: "vision"}}},
			"\nUsage halves every 1h, applied at each 24h period's end, next in 3h 52m.\n"},
		{"an older master: nothing", api.Usage{Shares: []api.Share{{Account: "vision"}}}, ""},
		{"many users", api.Usage{Shares: many}, "\nFair-tree ranks (1 is best, of 10 users): 1 p/ua; 2 p/ub; 3 p/uc; 4 p/ud;\n" +
			"5 p/ue; 6 p/uf; 7 p/ug; 8 p/uh; and 2 more (-o json has each rank).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := printShareNotes(&b, tt.u); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

// TestExplainFairShareNote: explain prints the master's fair-share note
// under the priority line, with the factor (trial 29i I14).
func TestExplainFairShareNote(t *testing.T) {
	x := api.Explanation{Job: 16, State: "queued", Pool: "gpu", Policy: "multifactor", Summary: "It waits.",
		Factors:       &api.Factors{Priority: 6791.67, FairShare: 1.0 / 3},
		FairShareNote: "rank 3 of 3 users; usage halves every 1h, applied at each 24h period's end, next in 3h 52m"}
	var b strings.Builder
	if err := printExplanation(&b, x); err != nil {
		t.Fatal(err)
	}
	want := "Priority: 6791.6700 (age 0.000, fair share 0.333, size 0.000, QOS 0.000, pool 0.000, nice 0)\n" +
		"          fair share 0.333 (rank 3 of 3 users; usage halves every 1h,\n" +
		"          applied at each 24h period's end, next in 3h 52m)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("explain printed\n%s\nwant it to contain\n%s", b.String(), want)
	}
}
