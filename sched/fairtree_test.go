package sched

import (
	"cmp"
	"math"
	"slices"
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
			// ops and biology tie (no usage, a sixth of the shares
			// each): carol, biology's best, shares ops's rank.
			want:   map[string]float64{"carol": 1, "ops": 1, "bob": 0.5, "alice": 0.25},
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

// TestFairTreeTies: siblings of equal level fair share and shares tie, as
// Slurm's Fair Tree allows: tied users share a rank (the higher), the
// user after them takes the rank it would have without the tie, tied
// accounts have their children ranked together, and the first user under
// an account tied with a user shares that user's rank. No factor hangs on
// the order the accounts were made in (trial 29i I9: of two users who
// used nothing, the first made got 1, the other 2/3).
func TestFairTreeTies(t *testing.T) {
	for _, tc := range fairTreeTieCases() {
		t.Run(tc.name, func(t *testing.T) {
			// Every order of making the accounts gives the same factors:
			// as listed, and with the leaves reversed.
			for _, reversed := range []bool{false, true} {
				checkTieCase(t, tc, reversed)
			}
		})
	}
}

// tieAcc is an account of a tie case: its parent by name ("" at the top)
// and whether a job charges it.
type tieAcc struct {
	name   string
	parent string
	shares float64
	usage  float64
	job    bool
}

type tieCase struct {
	name string
	accs []tieAcc
	want map[string]float64 // factor by account
	rank map[string]int     // AccountShares' Rank by account
}

func fairTreeTieCases() []tieCase {
	type acc = tieAcc
	return []tieCase{
		{
			// Trial I9: nlp's xx and yy used nothing, zed some.
			name: "two idle users share the top rank",
			accs: []acc{{"nlp", "", 1, 0, false}, {"xx", "nlp", 1, 0, true}, {"yy", "nlp", 1, 0, true},
				{"zed", "nlp", 1, 0.2, true}},
			want: map[string]float64{"xx": 1, "yy": 1, "zed": 1.0 / 3},
			rank: map[string]int{"xx": 1, "yy": 1, "zed": 3},
		},
		{
			name: "a tie below the top takes the higher rank",
			accs: []acc{{"lab", "", 1, 0, false}, {"a", "lab", 1, 0, true}, {"b", "lab", 1, 0.3, true},
				{"c", "lab", 1, 0.3, true}, {"d", "lab", 1, 0.6, true}},
			want: map[string]float64{"a": 1, "b": 0.75, "c": 0.75, "d": 0.25},
			rank: map[string]int{"a": 1, "b": 2, "c": 2, "d": 4},
		},
		{
			name: "more shares still rank first among idle users",
			accs: []acc{{"lab", "", 1, 0, false}, {"a", "lab", 1, 0, true}, {"b", "lab", 2, 0, true}},
			want: map[string]float64{"b": 1, "a": 0.5},
			rank: map[string]int{"b": 1, "a": 2},
		},
		{
			// Trial I9 on M1: ana (vision) and bo (nlp), neither
			// project with usage: the projects tie, their users are
			// ranked together.
			name: "tied projects rank their users together",
			accs: []acc{{"vision", "", 1, 0, false}, {"nlp", "", 1, 0, false}, {"ana", "vision", 1, 0, true},
				{"bo", "nlp", 1, 0, true}},
			want: map[string]float64{"ana": 1, "bo": 1},
			rank: map[string]int{"ana": 1, "bo": 1},
		},
		{
			// Ranked together, a user with the whole of her project's
			// shares goes before two who split theirs: ties to more
			// shares, as among siblings.
			name: "merged idle users: more shares first",
			accs: []acc{{"vision", "", 1, 0, false}, {"nlp", "", 1, 0, false}, {"ana", "vision", 1, 0, true},
				{"bo", "nlp", 1, 0, true}, {"cy", "nlp", 1, 0, true}},
			want: map[string]float64{"ana": 1, "bo": 2.0 / 3, "cy": 2.0 / 3},
			rank: map[string]int{"ana": 1, "bo": 2, "cy": 2},
		},
		{
			// Merged, the projects' users sort by their own level fair
			// share: vision's idle dan ties with nlp's idle eve, ahead
			// of both projects' busier users.
			name: "merged children sort by their own level",
			accs: []acc{{"vision", "", 1, 0.2, false}, {"nlp", "", 1, 0.2, false},
				{"ana", "vision", 1, 0.2, true}, {"dan", "vision", 1, 0, true},
				{"bo", "nlp", 1, 0.2, true}, {"eve", "nlp", 1, 0, true}},
			want: map[string]float64{"dan": 1, "eve": 1, "ana": 0.5, "bo": 0.5},
			rank: map[string]int{"dan": 1, "eve": 1, "ana": 3, "bo": 3},
		},
		{
			// ops (a user at the top) and lab used as much for as many
			// shares: lab's best user shares ops's rank, the next lab
			// user does not.
			name: "an account tied with a user starts tied",
			accs: []acc{{"ops", "", 1, 0.1, true}, {"lab", "", 1, 0, false},
				{"a", "lab", 1, 0, true}, {"b", "lab", 1, 0.1, true}},
			want: map[string]float64{"ops": 1, "a": 1, "b": 1.0 / 3},
			rank: map[string]int{"ops": 1, "a": 1, "b": 3},
		},
		{
			// An idle leaf no job charges takes no rank, and does not
			// stand between two tied users.
			name: "an unranked leaf does not break a tie",
			accs: []acc{{"lab", "", 1, 0, false}, {"a", "lab", 1, 0, true}, {"idle", "lab", 1, 0, false},
				{"b", "lab", 1, 0, true}, {"c", "lab", 1, 0.5, true}},
			want: map[string]float64{"a": 1, "b": 1, "c": 1.0 / 3, "idle": 0},
			rank: map[string]int{"a": 1, "b": 1, "c": 3, "idle": 0},
		},
		{
			// lab ties with ops; its idle leaf, first by LF (no usage),
			// takes no rank, so a, lab's best user, shares ops's.
			name: "an unranked leaf does not take an account's tie",
			accs: []acc{{"ops", "", 1, 0.1, true}, {"lab", "", 1, 0, false},
				{"idle", "lab", 1, 0, false}, {"a", "lab", 1, 0.1, true}},
			want: map[string]float64{"ops": 1, "a": 1, "idle": 0},
			rank: map[string]int{"ops": 1, "a": 1, "idle": 0},
		},
	}
}

// checkTieCase builds tc's accounts, in reverse where reversed (parents
// still first), and checks the factors and ranks, and that jobs get
// their accounts' factors.
func checkTieCase(t *testing.T, tc tieCase, reversed bool) {
	t.Helper()
	accs := append([]tieAcc(nil), tc.accs...)
	if reversed {
		slices.Reverse(accs)
		slices.SortStableFunc(accs, func(x, y tieAcc) int { return cmp.Compare(len(x.parent), 0) - cmp.Compare(len(y.parent), 0) })
	}
	b := newCluster(t).pool("p", PolicyMultifactor, mfPool(Multifactor{FairShare: 1, FairShareMode: FairShareTree})).nodes("p", 1, 1, "")
	idx := map[string]int{}
	for _, a := range accs {
		parent := -1
		if a.parent != "" {
			parent = idx[a.parent]
		}
		idx[a.name] = b.account(a.name, parent, a.shares, a.usage)
		if a.job {
			b.job(a.name, acct(idx[a.name]))
		}
	}
	s := b.snapshot()
	sh, err := AccountShares(s, FairShareTree)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range tc.want {
		if got := sh[idx[name]].Factor; math.Abs(got-want) > 1e-12 {
			t.Errorf("reversed %v: %s: factor %v, want %v", reversed, name, got, want)
		}
	}
	for name, want := range tc.rank {
		if got := sh[idx[name]]; got.Rank != want || (want > 0) != (got.Users > 0) {
			t.Errorf("reversed %v: %s: rank %d of %d, want %d", reversed, name, got.Rank, got.Users, want)
		}
	}
	f := mustFactors(t, s)
	for ji := range s.Jobs {
		if got, want := f[ji].FairShare, sh[s.Jobs[ji].Account].Factor; got != want {
			t.Errorf("job %s: factor %v, AccountShares %v", s.Jobs[ji].ID, got, want)
		}
	}
}
