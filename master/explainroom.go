package master

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// What a play-out finds past the first answer: a second thing holding a
// job back once the named jobs end (trial n F1: a job blocked by its
// project's limit was told "it could start once job 3 ends", but past its
// quota it runs only on idle slots, and once job 3 ended it still waited
// for another project's job 1), and a running elastic job that grows
// first into what the named jobs free (trial n F12).

// needsPlay says whether answer ask (nil: none names a running job's
// end) is played out with the core: where other jobs of job ji's pool
// wait and could take what the ends free, where it names its project's
// own work (its limit alone may not be all that holds it), and where a
// running elastic task of the pool may grow into the freed slots first.
func needsPlay(s *sched.Snapshot, ji int, ask *aheadAsk) bool {
	if ask == nil {
		return false
	}
	return ask.project >= 0 || othersWait(s, ji) || growable(s, ji) >= 0
}

// growable is a running allocation of job ji's pool whose elastic task
// holds less than its size and may grow before less important jobs
// start (a priority or multifactor pool, sched.GrowsAhead), -1 for none.
// Whether its job outranks ji is the core's to say, in the play-out.
func growable(s *sched.Snapshot, ji int) int { return growableIn(s, s.Jobs[ji].Pool, ji) }

// growableIn is growable for pool, leaving job except's tasks out (-1:
// none).
func growableIn(s *sched.Snapshot, pool, except int) int {
	if pool < 0 || pool >= len(s.Pools) || !sched.GrowsAhead(s.Pools[pool].Policy) {
		return -1
	}
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		o := &s.Jobs[a.Job]
		if a.Job != except && o.Pool == pool && o.MinSlots > 0 && !o.Interactive && !a.Preempting &&
			sched.Slots(a.Nodes) < o.Slots {
			return ai
		}
	}
	return -1
}

// grownJobs are the jobs of pool whose running tasks plan grows (a
// resize for no other job to a larger placement), each once.
func grownJobs(s *sched.Snapshot, plan *sched.Plan, pool int) []int {
	var out []int
	for _, rz := range plan.Resizes {
		if rz.For >= 0 || rz.Alloc < 0 || rz.Alloc >= len(s.Allocs) {
			continue
		}
		a := &s.Allocs[rz.Alloc]
		if s.Jobs[a.Job].Pool == pool && sched.Slots(rz.Nodes) > sched.Slots(a.Nodes) && !slices.Contains(out, a.Job) {
			out = append(out, a.Job)
		}
	}
	return out
}

// elasticPhrase names running elastic job ji with what its smallest
// task holds of its size (elasticName).
func (f *cfFacts) elasticPhrase(ji int) string {
	return elasticName(f.s, ji, "job "+f.label(ji))
}

// grewFirst leads answer with the running elastic jobs grew that the
// pass with cf's ends grew ahead of job ji: they have first claim on
// what the ends free, so cf's ends alone are no promise.
func (f *cfFacts) grewFirst(ji int, cf *api.Counterfactual, grew []int, answer *api.Counterfactual) *api.Counterfactual {
	if len(grew) == 0 || len(cf.MustEnd) == 0 {
		return answer
	}
	var names []string
	for _, j := range grew {
		names = append(names, f.elasticPhrase(j))
	}
	lead := fmt.Sprintf("Once %s, %s would grow first into the slots that free: in pool %s a running elastic job grows before strictly less important jobs start.",
		mustEndPhrase(cf.MustEnd), andList(names), f.s.Pools[f.s.Jobs[ji].Pool].Name)
	if answer == cf {
		out := *cf
		answer = &out
	}
	answer.Message = lead + " " + answer.Message
	return answer
}

// roomToo is the answer when cf names its project's own work (its limit
// or quota binds) and the pass with that work gone gives job ji no room
// while no other job takes it: something else holds it too, most often
// room (past its quota it runs only on idle slots). The pool's other
// running jobs are then taken away as well, soonest to end first, the
// fewest that let it start, and the answer names both; where even all
// of them would not, it says that the project's work ending would not
// start it. cf is kept when the pass gives a reason room would not cure.
func (f *cfFacts) roomToo(p *aheadPlay, ji int, cf *api.Counterfactual, ask *aheadAsk, failed outcome) *api.Counterfactual {
	if failed.room || ask.project < 0 || !roomReason(failed.reason) {
		return cf
	}
	s := f.s
	e := &s.Jobs[ji]
	pool := s.Pools[e.Pool].Name
	more := f.poolMore(f.poolNodes(e), ask.ends)
	k := p.fewest(len(more), func(k int) bool { return p.trial(goneOf(len(s.Allocs), ask.ends, more[:k])).room })
	still := fmt.Sprintf("Once %s it would still wait: %s.", mustEndPhrase(cf.MustEnd), roomWords(failed.reason))
	out := &api.Counterfactual{Quota: cf.Quota, Nodes: cf.Nodes}
	if k < 0 {
		out.Message = fmt.Sprintf("Its project %s's own work in pool %s ending would not start it now. %s %s",
			s.Projects[ask.project].Name, pool, still, cf.Quota)
		return out
	}
	var others []int
	for _, allocs := range more[:k] {
		others = append(others, allocs...)
	}
	refs, _ := f.mustEnd(e, f.poolNodes(e), others)
	out.MustEnd = append(slices.Clone(cf.MustEnd), refs...)
	out.NotBefore = laterOf(cf.NotBefore, refs, s.Now)
	out.Message = fmt.Sprintf("Two things hold it back: its project %s's %s in pool %s, which only its own work ending (or the %s raised) lifts, and room in the pool. %s It could start once %s. %s",
		s.Projects[ask.project].Name, ask.what, pool, ask.what, still, mustEndPhrase(out.MustEnd), cf.Quota)
	return out
}

// fewest is the fewest k of n for which ok(k) holds, doubling then
// halving while passes are left; -1 when none does.
func (p *aheadPlay) fewest(n int, ok func(int) bool) int {
	fail, good := 0, -1
	for k := 1; good < 0 && fail < n && p.passes < maxAheadPasses; k *= 2 {
		if p.passes >= maxAheadPasses-1 {
			k = n
		}
		if k = min(k, n); ok(k) {
			good = k
		} else {
			fail = k
		}
	}
	for good > 0 && good-fail > 1 && p.passes < maxAheadPasses {
		if mid := (fail + good) / 2; ok(mid) {
			good = mid
		} else {
			fail = mid
		}
	}
	return good
}

// laterOf is the later of first (the project's work's end) and the ends
// of refs that must end (not those that could be preempted), now if it
// has passed; nil when first is nil or one of them has no time limit.
func laterOf(first *time.Time, refs []api.JobRef, now int64) *time.Time {
	if first == nil {
		return nil
	}
	until := first.Unix()
	for _, r := range refs {
		if r.Preempt != "" {
			continue
		}
		if r.EndsAt == nil {
			return nil
		}
		until = max(until, r.EndsAt.Unix())
	}
	t := time.Unix(max(until, now), 0).UTC()
	return &t
}

// roomReason says whether a job waiting for reason r waits for room
// that other jobs' ends would free.
func roomReason(r sched.Reason) bool {
	switch r {
	case sched.ReasonNoCapacity, sched.ReasonFragmented, sched.ReasonNoSpare, sched.ReasonTopology, sched.ReasonReserved:
		return true
	}
	return false
}

// roomWords says in words what room a job waiting for reason r lacks.
func roomWords(r sched.Reason) string {
	switch r {
	case sched.ReasonNoSpare:
		return "past its project's quota it runs only on idle slots (no_spare), and too few would be idle"
	case sched.ReasonFragmented:
		return "the free slots would not be on nodes that can hold it (fragmented)"
	case sched.ReasonTopology:
		return "no switch would have enough whole nodes free (topology)"
	case sched.ReasonReserved:
		return "the pool would reserve it a later start (reserved)"
	}
	return "too few slots would be free (" + r.String() + ")"
}
