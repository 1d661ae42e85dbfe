package sched

import (
	"math"
	"testing"
)

// TestFairTreeRanksUsers: fair tree ranks the leaves that stand for users,
// those a job charges or that have usage, not every account without
// children: an empty project, or a user's account no job charges and
// that used nothing, took ranks before the users and pushed their
// factors down (first of N users 1, last 1/N, with N all such accounts).
// fairTreeCluster's users alice, bob and carol keep their factors.
func TestFairTreeRanksUsers(t *testing.T) {
	tests := []struct {
		name string
		// extra adds accounts (and jobs) to fairTreeCluster's, given its
		// physics and biology accounts (0 and 1).
		extra  func(b *cluster)
		want   map[string]float64 // fair-share factor by job
		ranked map[string]bool    // AccountShares' Ranked by account
	}{
		{
			name: "empty accounts and an idle user take no rank",
			extra: func(b *cluster) {
				b.account("empty1", -1, 1, 0)
				b.account("empty2", -1, 1, 0)
				b.account("dave", 0, 1, 0) // under physics: no job, no usage
			},
			want:   map[string]float64{"carol": 1, "bob": 2.0 / 3, "alice": 1.0 / 3},
			ranked: map[string]bool{"physics": false, "biology": false, "empty1": false, "dave": false, "carol": true, "alice": true},
		},
		{
			name:   "a leaf with usage and no job is ranked",
			extra:  func(b *cluster) { b.account("erin", 1, 1, 0.1) }, // under biology
			want:   map[string]float64{"carol": 1, "bob": 0.5, "alice": 0.25},
			ranked: map[string]bool{"erin": true, "biology": false},
		},
		{
			// A scenario's job may charge an account with no user under
			// it: that account is a user's as far as fair tree goes.
			name: "an account a job charges directly is ranked",
			extra: func(b *cluster) {
				b.job("ops", acct(b.account("ops", -1, 1, 0)))
				b.account("empty", -1, 1, 0)
			},
			want:   map[string]float64{"carol": 1, "ops": 0.75, "bob": 0.5, "alice": 0.25},
			ranked: map[string]bool{"ops": true, "empty": false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := fairTreeCluster(t, FairShareTree)
			tc.extra(b)
			s := b.snapshot()
			f := mustFactors(t, s)
			for ji := range s.Jobs {
				want, ok := tc.want[s.Jobs[ji].ID]
				if !ok {
					t.Fatalf("job %s has no expected factor", s.Jobs[ji].ID)
				}
				if got := f[ji].FairShare; math.Abs(got-want) > 1e-12 {
					t.Errorf("%s: fair-share factor %v, want %v", s.Jobs[ji].ID, got, want)
				}
			}
			sh, err := AccountShares(s, FairShareTree)
			if err != nil {
				t.Fatal(err)
			}
			for a := range s.Accounts {
				name := s.Accounts[a].Name
				if want, ok := tc.ranked[name]; ok && sh[a].Ranked != want {
					t.Errorf("account %s: ranked %v, want %v", name, sh[a].Ranked, want)
				}
				if !sh[a].Ranked && sh[a].Factor != 0 {
					t.Errorf("account %s is not ranked but has factor %v", name, sh[a].Factor)
				}
			}
			classic, err := AccountShares(s, FairShareClassic)
			if err != nil {
				t.Fatal(err)
			}
			for a := range classic {
				if !classic[a].Ranked {
					t.Errorf("classic: account %s has no factor of its own", s.Accounts[a].Name)
				}
			}
		})
	}
}
