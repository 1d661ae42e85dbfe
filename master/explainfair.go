package master

import (
	"cmp"
	"fmt"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// fairShareNote says of waiting job ji of s, in a multifactor pool that
// weighs fair share, where its user ranks under fair tree ("rank 2 of 3
// users, tied with 1"; classic has no rank: its share and usage) and how
// usage decays, with when it next does: members cannot read the
// configuration, and a low factor's "until when" hangs on both (trial
// 2026-11-29i I14). "" where the pool does not weigh fair share.
func fairShareNote(s *sched.Snapshot, ji int, cfg *config.Config) string {
	j := &s.Jobs[ji]
	if j.Pool < 0 || j.Pool >= len(s.Pools) || s.Pools[j.Pool].Multifactor.FairShare <= 0 {
		return ""
	}
	mode := cmp.Or(s.Pools[j.Pool].Multifactor.FairShareMode, sched.FairShareClassic)
	standing := ""
	if sh, err := sched.AccountShares(s, mode); err == nil && j.Account >= 0 && j.Account < len(sh) {
		standing = accountStanding(sh, j.Account, mode)
	}
	decay := decayNote(cfg.Decay, s.Now)
	switch {
	case standing == "":
		return decay
	case decay == "":
		return standing
	}
	return standing + "; " + decay
}

// accountStanding says where account a stands among sh under mode: its
// rank under fair tree, with how many users share it; its normalised
// share and usage under classic (factor S − U).
func accountStanding(sh []sched.AccountShare, a int, mode sched.FairShareMode) string {
	st := sh[a]
	if mode != sched.FairShareTree {
		return fmt.Sprintf("share %.3f of the cluster less usage %.3f", st.NormShares, st.EffectiveUsage)
	}
	if st.Rank <= 0 {
		return ""
	}
	out := fmt.Sprintf("rank %d of %s", st.Rank, plural.Count(st.Users, "user"))
	tied := 0
	for i := range sh {
		if i != a && sh[i].Rank == st.Rank {
			tied++
		}
	}
	if tied > 0 {
		out += fmt.Sprintf(", tied with %d", tied)
	}
	return out
}

// decayNote says how usage decays under d and, where it does, when it
// next does, from now (Unix seconds): "usage halves every 168h, applied
// at each 24h period's end, next in 3h 52m".
func decayNote(d spec.Decay, now int64) string {
	words := d.Words()
	if words == "" || (d.HalfLife == 0 && d.PerPeriod == 1) {
		return words
	}
	return words + ", next in " + sched.HumanDuration(d.NextDecay(now))
}
