package sched

// AccountShare is one account's fair-share standing, as Slurm's sshare
// shows it: its normalised share of the cluster (S), its effective usage
// with its descendants' (U), both as fractions of the cluster, and the
// fair-share factor its jobs get under the mode.
type AccountShare struct {
	NormShares     float64
	EffectiveUsage float64
	Factor         float64
	// Ranked says the account has a factor of its own. Classic gives
	// every account one; fair tree ranks only the leaves with jobs or
	// usage (the users), and gives the others, accounts with children and
	// leaves no job has charged, a Factor of 0 that no job gets.
	Ranked bool
	// Rank is, under fair tree, a ranked account's place among the Users
	// ranked, 1 the best (Factor 1); tied users share one, and the user
	// after a tie takes the place it would have without it (1, 1, 3).
	// Both are 0 under classic and for accounts fair tree does not rank.
	Rank, Users int
}

// AccountShares computes every account's standing in s, indexed like
// s.Accounts, with the same arithmetic a pass uses for the multifactor
// fair-share factor. It rejects the snapshots Schedule rejects.
func AccountShares(s *Snapshot, m FairShareMode) ([]AccountShare, error) {
	var parents []bool
	if err := validate(s, &parents, nil); err != nil {
		return nil, err
	}
	var ap accountPass
	factor, _ := ap.factors(s, m)
	out := make([]AccountShare, len(s.Accounts))
	for a := range out {
		out[a] = AccountShare{NormShares: ap.norm[a], EffectiveUsage: ap.total[a], Factor: factor[a],
			Ranked: m != FairShareTree || ap.ranked[a]}
		if m == FairShareTree && ap.ranked[a] {
			out[a].Rank, out[a].Users = int(ap.place[a]), ap.users
		}
	}
	return out, nil
}
