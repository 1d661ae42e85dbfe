package sched

// FairShares gives each job of a fair_share pool its fair share of the
// pool, in slots, as a pass over s computes it (shareOrder: the water
// fill of demand × weight in whole tasks, an elastic job's in steps of
// its min_slots), and 0 for the jobs of other pools and those that take
// no share (a job no node could ever hold). It is for callers that say
// why a job waits, as PriorityFactors is: a job below its share preempts
// only for a task that fits within it (sharePreempt), and only tasks of
// jobs that stay at or above theirs. It runs a pass on a Scheduler of its
// own, and rejects the snapshots Schedule rejects.
func FairShares(s *Snapshot) ([]int, error) {
	out := make([]int, len(s.Jobs))
	var sc Scheduler
	// The pass calls policy for each pool, in order, just before the
	// pool's stages run; the shares a fair_share pool's order stage
	// computed hold until the next one's begins.
	pool := -1
	keep := func() {
		if pool < 0 || s.Pools[pool].Policy != PolicyFairShare {
			return
		}
		for j := range s.Jobs {
			if s.Jobs[j].Pool == pool && j < len(sc.fs.share) {
				out[j] = int(sc.fs.share[j])
			}
		}
	}
	_, err := sc.schedule(s, func(pl *Pool) stageList {
		keep()
		pool++
		return declare(pl)
	})
	if err != nil {
		return nil, err
	}
	keep()
	return out, nil
}
