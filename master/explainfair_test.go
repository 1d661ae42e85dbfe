package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestExplainFairShareNote (trial 29i I9, I14): the pool is full of the
// admin's job, which has used 10 minutes of it; xx and yy, who used
// nothing, wait in nlp. They tie under fair tree: both get factor 1 (yy,
// whose account is made first, no longer gets it alone), and each one's
// explanation says the rank, the tie and how usage decays, with when it
// next does (the harness's clock is at noon UTC: midnight is 12h away),
// in words a member may read. Under classic it says the share and usage.
func TestExplainFairShareNote(t *testing.T) {
	const decay = "usage halves every 168h, applied at each 24h period's end, next in 11h 50m"
	for _, tt := range []struct {
		mode string
		want string
	}{
		{"fair_tree", "rank 1 of 3 users, tied with 1; " + decay},
		// nlp's quota of 2 (of 7) is its shares; xx and yy split it.
		{"classic", "share 0.143 of the cluster less usage 0.000; " + decay},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, strings.Replace(fairLeafConfig, "MODE", tt.mode, 1))))
			n1 := h.agent("n1", 4)
			h.submit(projectJob("fill", "default", 4, `, "time_limit": 6000`))
			h.step()
			h.sync(n1, n1)
			h.clock.Advance(10 * time.Minute)
			h.step()
			ids := map[string]int64{}
			ids["yy"] = h.submitAs("yy", projectJob("y1", "nlp", 1, ""))
			ids["xx"] = h.submitAs("xx", projectJob("x1", "nlp", 1, ""))
			h.step()
			for user, id := range ids {
				x := explainAs(t, h, h.as(user), id)
				if x.Factors == nil {
					t.Fatalf("%s: no factors in %+v", user, x)
				}
				if x.Factors.FairShare != 1 && tt.mode == "fair_tree" {
					t.Errorf("%s: fair share %v, want 1 (tied with the other)", user, x.Factors.FairShare)
				}
				if x.FairShareNote != tt.want {
					t.Errorf("%s: fair-share note %q, want %q", user, x.FairShareNote, tt.want)
				}
			}
		})
	}
}

// TestUsageSharesRankAndDecay: allot usage's shares give each ranked
// user's rank and the number ranked, and say how usage decays (trial
// 29i I14).
func TestUsageSharesRankAndDecay(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, strings.Replace(fairLeafConfig, "MODE", "fair_tree", 1)+"decay: {half_life: 1h, period: 1h}\n")))
	h.submitAs("alice", projectJob("a1", "vision", 1, ""))
	h.submitAs("bob", projectJob("b1", "nlp", 1, ""))
	h.step()
	var u api.Usage
	must200(t, h.do("GET", "/api/v1/usage", nil, &u), "usage")
	if want := "usage halves every 1h, applied at each 1h period's end, next in 1h"; u.Decay != want {
		t.Errorf("decay %q, want %q", u.Decay, want)
	}
	rank := map[string][2]int{}
	for _, s := range u.Shares {
		rank[s.Account] = [2]int{s.Rank, s.Users}
	}
	// vision's quota of 4 is more shares than nlp's 2: alice ranks first.
	for acc, want := range map[string][2]int{"vision/alice": {1, 2}, "nlp/bob": {2, 2}, "vision": {}, "default": {}} {
		if rank[acc] != want {
			t.Errorf("%s: rank %v, want %v", acc, rank[acc], want)
		}
	}
}
