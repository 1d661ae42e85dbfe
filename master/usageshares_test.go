package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// TestKeptShares: allot usage's -u and -A keep in the fair-share table
// the accounts they keep in the rows, with the accounts above them
// (trial 2026-11-29j J11); without either, every account.
func TestKeptShares(t *testing.T) {
	accounts := []sched.Account{{Name: "research", Parent: -1}, {Name: "vision", Parent: 0}, {Name: "nlp", Parent: 0},
		{Name: "vision/alice", Parent: 1}, {Name: "nlp/bob", Parent: 2}, {Name: "vision/bob", Parent: 1}}
	for _, tt := range []struct {
		name, user, project string
		want                []string
	}{
		{"no filter", "", "", []string{"research", "vision", "nlp", "vision/alice", "nlp/bob", "vision/bob"}},
		{"a user", "bob", "", []string{"research", "vision", "nlp", "nlp/bob", "vision/bob"}},
		{"a project", "", "nlp", []string{"research", "nlp", "nlp/bob"}},
		{"both", "bob", "vision", []string{"research", "vision", "vision/bob"}},
		{"nobody's", "zoe", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for i, k := range keptShares(accounts, tt.user, tt.project) {
				if k {
					got = append(got, accounts[i].Name)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("kept %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUsageSharesFiltered: GET /usage?user= narrows the shares as it
// narrows the rows.
func TestUsageSharesFiltered(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, strings.Replace(fairLeafConfig, "MODE", "fair_tree", 1))))
	h.submitAs("alice", projectJob("a1", "vision", 1, ""))
	h.submitAs("bob", projectJob("b1", "nlp", 1, ""))
	h.step()
	var u api.Usage
	must200(t, h.do("GET", "/api/v1/usage?user=bob", nil, &u), "usage")
	var got []string
	for _, s := range u.Shares {
		got = append(got, s.Account)
	}
	if !slices.Equal(got, []string{"nlp", "nlp/bob"}) {
		t.Errorf("shares of bob's usage: %v, want nlp and nlp/bob", got)
	}
}
