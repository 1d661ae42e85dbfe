package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Estimated starts. The core gives a start time only to the jobs its
// policy reserves for (backfill heads, conservative queues). For every
// other waiting job the master forecasts one: it runs the same core forward
// from a copy of the last pass's snapshot, with every running task ending
// at its time limit and every started job running for its time limit,
// starting what each pass starts, until every job has started or no task
// with a time limit is left to end. Preemptions in the forecast are not
// carried out, so under preemptive policies the estimate errs late. A job
// behind a task without a time limit gets no estimate: nobody can say.

// etaEvery is how often the forecast runs, from the loop's tick.
const etaEvery = 10 * time.Second

// etaRun is when the forecast ran (at, wall clock) and what it took;
// wanted marks a job added since, which it has no estimate for.
type etaRun struct {
	at     time.Time
	took   time.Duration
	wanted bool
}

// due says whether the tick runs the forecast now: every etaEvery, and
// sooner once a job was added since the last one (a user who just
// submitted asks when it starts), but never sooner than a second, nor
// than five times what the last forecast took after it, so that a
// stream of submissions to a large cluster does not keep the loop
// forecasting. Callers hold mu.
func (r *etaRun) due(now time.Time) bool {
	since := now.Sub(r.at)
	return since >= etaEvery || r.wanted && since >= max(time.Second, 5*r.took)
}

// want has the forecast run again soon (due): after a job was added,
// or a change that moves every estimate (a reload, a drain or resume),
// rather than show the old estimates beside the new reasons until the
// next etaEvery. Callers hold mu.
func (r *etaRun) want() { r.wanted = true }

// copySnapshot copies what the next passes of the master reuse in place:
// every slice, and the allocations' placements, which live in an arena.
func copySnapshot(src *sched.Snapshot) sched.Snapshot {
	s := *src
	s.Pools = slices.Clone(src.Pools)
	s.Nodes = slices.Clone(src.Nodes)
	s.Projects = slices.Clone(src.Projects)
	s.Accounts = slices.Clone(src.Accounts)
	s.Licenses = slices.Clone(src.Licenses)
	s.QOS = slices.Clone(src.QOS)
	s.Jobs = slices.Clone(src.Jobs)
	for i := range s.Jobs {
		s.Jobs[i].Licenses = slices.Clone(s.Jobs[i].Licenses)
		s.Jobs[i].ReservedNodes = slices.Clone(s.Jobs[i].ReservedNodes)
	}
	s.Allocs = slices.Clone(src.Allocs)
	for i := range s.Allocs {
		s.Allocs[i].Nodes = slices.Clone(s.Allocs[i].Nodes)
	}
	return s
}

// refreshETA runs the forecast on a copy of the last snapshot, outside
// mu, and keeps its estimates by job id.
func (pl *planner) refreshETA() {
	pl.m.lock()
	snap := copySnapshot(&pl.snap)
	r := &pl.roster
	ids := make([]int64, r.size())
	for i, ri := range r.List() {
		ids[i] = r.jobs[ri].rec.ID
	}
	scale := pl.runs.typical()
	pl.etaRun.wanted = false // a job added from here on waits for the next
	pl.m.unlock()
	began := time.Now()
	byID := func(est map[int]int64) map[int64]time.Time {
		out := make(map[int64]time.Time, len(est))
		for ji, at := range est {
			if ji < len(ids) {
				out[ids[ji]] = time.Unix(at, 0).UTC()
			}
		}
		return out
	}
	late := byID(sched.Forecast(&snap))
	var early map[int64]time.Time
	if scale > 0 && scale < 1 {
		early = byID(sched.ForecastScaled(&snap, scale))
	}
	pl.m.lock()
	pl.eta, pl.etaEarly, pl.etaRun.at = late, early, time.Now()
	pl.etaRun.took = pl.etaRun.at.Sub(began)
	pl.m.pub.readStale = true
	pl.m.unlock()
}

// maxRunRatios bounds the recent attempts whose share of their time limit
// the range of estimates is taken from.
const maxRunRatios = 256

// runShares is a ring of the shares of their time limits that recent
// completed attempts used, from which the range of estimates is taken.
type runShares struct {
	ratios []float64
	next   int // the ring's next slot
}

// note records what share of its time limit a completed attempt used.
// Callers hold mu.
func (r *runShares) note(ran, limit time.Duration) {
	if limit <= 0 || ran <= 0 {
		return
	}
	share := min(float64(ran)/float64(limit), 1)
	if len(r.ratios) < maxRunRatios {
		r.ratios = append(r.ratios, share)
	} else {
		r.ratios[r.next] = share
	}
	r.next = (r.next + 1) % maxRunRatios
}

// typical is the median share of their time limit that recent completed
// attempts used, or 0 with fewer than 5 to go by. Callers hold mu.
func (r *runShares) typical() float64 {
	if len(r.ratios) < 5 {
		return 0
	}
	rs := slices.Clone(r.ratios)
	slices.Sort(rs)
	return rs[len(rs)/2]
}

// restoreRunJobs bounds the jobs, newest first, whose attempts a
// restarted master reads back into runShares (restoreRuns), and
// restoreRunPage the jobs read at once.
const (
	restoreRunJobs = 4 * maxRunRatios
	restoreRunPage = 128
)

// restoreRuns refills runShares after a restart from the store: the
// completed attempts of the newest jobs with a time limit, by when they
// ended, so that the forecasts keep their range rather than lose it
// until five more attempts complete (trial o F9). Like note, it takes
// an attempt's run from its start to when the master heard of its end,
// against its job's time limit now. It reads at most restoreRunJobs
// jobs and stops once it has a ring's worth, so that a long history
// costs a start no more than a few queries. Run before the Master is
// reachable, it needs no mu.
func (pl *planner) restoreRuns(ctx context.Context) error {
	type ran struct {
		end        time.Time
		ran, limit time.Duration
	}
	var runs []ran
	var before int64 // 0: from the newest job
	for read := 0; read < restoreRunJobs && len(runs) < maxRunRatios; {
		jobs, err := pl.m.st.Jobs(ctx, store.JobFilter{BeforeID: before, Desc: true, Limit: restoreRunPage})
		if err != nil {
			return fmt.Errorf("restore the shares of their time limits recent attempts used: %w", err)
		}
		if len(jobs) == 0 {
			break
		}
		read, before = read+len(jobs), jobs[len(jobs)-1].ID
		limits := map[int64]time.Duration{}
		var ids []int64
		for _, j := range jobs {
			if j.TimeLimit > 0 {
				limits[j.ID] = j.TimeLimit
				ids = append(ids, j.ID)
			}
		}
		if len(ids) > 0 {
			atts, err := pl.m.st.Attempts(ctx, store.AttemptFilter{JobIDs: ids})
			if err != nil {
				return fmt.Errorf("restore the shares of their time limits recent attempts used: %w", err)
			}
			for _, a := range atts {
				if !a.Open() && a.EndState == store.AttemptCompleted {
					runs = append(runs, ran{a.EndedAt, a.EndedAt.Sub(a.StartedAt), limits[a.JobID]})
				}
			}
		}
		if len(jobs) < restoreRunPage {
			break
		}
	}
	// The ring keeps the last maxRunRatios it is given: the latest ends.
	slices.SortStableFunc(runs, func(a, b ran) int { return cmp.Compare(a.end.UnixNano(), b.end.UnixNano()) })
	for _, r := range runs[max(0, len(runs)-maxRunRatios):] {
		pl.runs.note(r.ran, r.limit)
	}
	return nil
}
