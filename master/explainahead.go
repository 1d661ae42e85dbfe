package master

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// The jobs a pool serves before a waiting job, in its counterfactual.
// Which running jobs must end is found on the nodes (pickNodes) or in
// the project (projectCounterfactual) alone, but what they free may go
// first to other waiting jobs: in a quota pool, job 1 of project A ending
// brings A back under its quota, and A's first waiting job takes the
// slots; in a FIFO pool, the head does. "Once job 1 ends" is then no
// promise. So the answer is played out by the core itself, whose order
// is the pool's: a pass (sched.Schedule) over a copy of the state with
// the named jobs' allocations gone. When the job gets no room there and
// other jobs of the pool start instead, more of the pool's running jobs
// (the project's, where its quota or limit binds) are taken away,
// soonest to end first, the fewest that let it start (doubling, then
// halving, at most maxAheadPasses passes); the answer names them and the
// jobs that would take some of what they free (StartFirst). When even
// all of them gone would not let it start, the answer names no running
// job, only the jobs the pool would serve first. When it gets no room
// and no other job starts, something else holds it (a rule), and the
// answer stays as it was; so it does when it gets room at once. But when
// what holds it is a reservation (it would fit, but starting would delay
// an earlier job's reserved start: would_delay, under EASY or
// conservative backfilling), the named jobs' ends would not start it
// either: the play-out goes on taking more away, as above, and the
// answer says that once they end it would still wait for that
// reservation; as the reservation moves when jobs end (the head may
// start elsewhere), the jobs found are then pruned, one by one, to those
// whose ends it needs. A job alone in its pool's queue is not played
// out.

// maxAheadPasses bounds the passes a play-out runs: enough for the fewest
// of 2,000 running jobs, a pass each over the whole snapshot.
const maxAheadPasses = 24

// aheadAsk is what a counterfactual leaves for its play-out: the
// allocations its answer takes away (ends).
type aheadAsk struct {
	ends []int
	// project is the project whose own work the answer names
	// (projectCounterfactual), -1 where it names nodes; bind and what
	// ("limit" or "quota") say what of it binds.
	project int
	bind    quotaBinding
	what    string
	// untimed marks a job with no time limit that fits now, whose
	// play-out asks whether a head with no reserved start holds it
	// (untimedAnswer), and names no end.
	untimed bool
}

// more lists the running jobs that a play-out of ask may take away too,
// in order, each as its allocations: the pool's on the nodes job e could
// use, or the project's own work that counts against what binds.
func (f *cfFacts) more(e *sched.Job, ask *aheadAsk) [][]int {
	if ask.project < 0 {
		return f.poolMore(f.poolNodes(e), ask.ends)
	}
	s := f.s
	byJob := map[int][]int{}
	var jobs []int
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		j := &s.Jobs[a.Job]
		if a.Preempting || j.Pool != e.Pool || !underProject(s, j.Project, ask.project) ||
			(ask.bind == bindWithin && !guaranteed(j)) || slices.Contains(ask.ends, ai) {
			continue
		}
		if _, ok := byJob[a.Job]; !ok {
			jobs = append(jobs, a.Job)
		}
		byJob[a.Job] = append(byJob[a.Job], ai)
	}
	return orderMore(s, jobs, byJob)
}

// aheadPlay is a play-out: the state its passes start from, which they
// do not change, and the job.
type aheadPlay struct {
	s      *sched.Snapshot
	ji     int
	sc     sched.Scheduler
	passes int
}

// outcome is what a pass of a play-out did: whether the job got room
// (a start, or preemptions made for it) and where it starts; the other
// jobs of its pool that the pass served first (those that start before
// it, or, when it gets none, every one that starts or preempts), and
// all of those that start or preempt. A backfilled start is left out
// (it delays no job before it: the slots were of no use to the job), and
// so is a start of no slots.
type outcome struct {
	room           bool
	at             []sched.NodeSlots
	first, started []int
	// delays is the job whose reservation it would delay (it waits
	// would_delay), -1 when it waits for no reservation; unreserved
	// says that job has no reserved start, and the job no time limit
	// (the would_delay's At is Never).
	delays     int
	unreserved bool
	// reason is why the job waits after the pass (0 when it got room),
	// and grew the running elastic jobs the pass grew ahead of it.
	reason sched.Reason
	grew   []int
}

// trial runs a pass over the state with the allocations gone (by index)
// taken away.
func (p *aheadPlay) trial(gone []bool) outcome {
	p.passes++
	s := *p.s
	s.Allocs = make([]sched.Alloc, 0, len(p.s.Allocs))
	for ai, a := range p.s.Allocs {
		if !gone[ai] {
			s.Allocs = append(s.Allocs, a)
		}
	}
	o := outcome{delays: -1}
	plan, err := p.sc.Schedule(&s)
	if err != nil {
		return o
	}
	pool := s.Jobs[p.ji].Pool
	took := func(j int) {
		if j != p.ji && s.Jobs[j].Pool == pool && !slices.Contains(o.started, j) {
			o.started = append(o.started, j)
			if !o.room {
				o.first = append(o.first, j)
			}
		}
	}
	for _, st := range plan.Starts {
		switch {
		case st.Job == p.ji:
			o.room, o.at = true, st.Nodes
		case !st.Backfill && sched.Slots(st.Nodes) > 0:
			took(st.Job)
		}
	}
	for _, pr := range plan.Preemptions {
		if pr.For == p.ji {
			o.room = true
		} else {
			took(pr.For)
		}
	}
	// A running elastic task grown takes slots as a start does (trial n
	// F12: it grows first into what a named job's end frees).
	for _, j := range grownJobs(&s, plan, pool) {
		took(j)
		o.grew = append(o.grew, j)
	}
	for _, pe := range plan.Pending {
		if pe.Job == p.ji && !o.room {
			o.reason = pe.Reason
			if pe.Reason == sched.ReasonWouldDelay {
				o.delays, o.unreserved = pe.Blocker, pe.At == sched.Never
			}
		}
	}
	return o
}

// playAhead plays the answer cf, which ask was left with, out on f's
// state (which must be the counterfactual's own, or a copy where its
// allocations keep their indexes), and returns it, or the answer that
// takes the jobs the pool serves before job ji into account.
func (f *cfFacts) playAhead(ji int, cf *api.Counterfactual, ask *aheadAsk) *api.Counterfactual {
	if !needsPlay(f.s, ji, ask) {
		return cf
	}
	// The passes' own copy of the jobs, its pool's alone waiting.
	base := *f.s
	base.Jobs = slices.Clone(f.s.Jobs)
	onePool(&base, f.s.Jobs[ji].Pool)
	p := &aheadPlay{s: &base, ji: ji}
	if ask.untimed {
		return f.untimedAnswer(p, ji, cf) // explainuntimed.go
	}
	more := f.more(&f.s.Jobs[ji], ask)
	goneWith := func(k int) []bool { return goneOf(len(f.s.Allocs), ask.ends, more[:k]) }
	// failed is the pass with the most gone that gave it no room.
	failed := p.trial(goneWith(0))
	if !failed.room && len(failed.first) == 0 && failed.delays < 0 {
		return f.roomToo(p, ji, cf, ask, failed) // explainroom.go
	}
	if failed.room {
		return cf
	}
	// held is the reservation the named ends alone would leave it
	// waiting for, -1 for none (or the job with no reserved start that
	// it, with no time limit, may not pass: unreserved).
	held, unreserved := failed.delays, failed.unreserved
	// The fewest more: double until it gets room, then halve between.
	fail, ok := 0, -1
	var won outcome
	try := func(k int) {
		if o := p.trial(goneWith(k)); o.room {
			ok, won = k, o
		} else {
			fail, failed = k, o
		}
	}
	for k := 1; ok < 0 && fail < len(more) && p.passes < maxAheadPasses; k *= 2 {
		if p.passes >= maxAheadPasses-1 {
			k = len(more) // the last pass: all of them
		}
		try(min(k, len(more)))
	}
	if ok < 0 {
		return f.grewFirst(ji, cf, failed.grew, f.heldBy(ji, cf, ask, held, unreserved, f.aheadOnly(ji, cf, ask, failed.first)))
	}
	for ok-fail > 1 && p.passes < maxAheadPasses {
		try((fail + ok) / 2)
	}
	chosen := more[:ok]
	if held >= 0 {
		// A reservation moves as jobs end: the soonest to end first is
		// no longer the fewest to name (the head may start elsewhere).
		chosen, won = p.prune(len(f.s.Allocs), ask.ends, chosen, won)
	}
	gone := slices.Clone(ask.ends)
	for _, allocs := range chosen {
		gone = append(gone, allocs...)
	}
	// Those served before it, and those that took what fewer gone freed
	// and still start: why it needs all of these gone.
	first := won.first
	for _, j := range failed.first {
		if slices.Contains(won.started, j) && !slices.Contains(first, j) {
			first = append(first, j)
		}
	}
	return f.grewFirst(ji, cf, failed.grew, f.heldBy(ji, cf, ask, held, unreserved, f.aheadAnswer(ji, cf, ask, gone, won.at, first)))
}

// heldBy leads answer out with what the ends cf named would leave job ji
// waiting for, the reservation of job held (would_delay): "Once job 11
// ends it would still wait: starting then would delay the reservation
// of job 10." When job held has no reserved start (unreserved), no
// reservation is named: "Once job 11 ends it would still wait: it has
// no time limit, and job 10 ahead of it has no reserved start (job 3
// runs with no time limit); only a job with a time limit may start
// before it." The answer without that is kept when held is -1; when it
// is cf itself (no running job's end, nor the jobs served first, say
// what would start it), the reservation alone is said.
func (f *cfFacts) heldBy(ji int, cf *api.Counterfactual, ask *aheadAsk, held int, unreserved bool, answer *api.Counterfactual) *api.Counterfactual {
	if held < 0 || held >= len(f.s.Jobs) {
		return answer
	}
	named := cf.MustEnd
	if len(named) == 0 {
		named, _ = f.heldRefs(ask.ends)
	}
	lead := fmt.Sprintf("Once %s it would still wait: starting then would delay the reservation of job %s.",
		mustEndPhrase(named), f.label(held))
	if unreserved {
		lead = fmt.Sprintf("Once %s it would still wait: it has no time limit, and %s; only a job with a time limit may start before it.",
			mustEndPhrase(named), f.noStartWords(held))
	}
	if answer == cf {
		out := *cf
		out.MustEnd, out.NotBefore, out.Nodes = nil, nil, nil
		out.Message = lead
		if out.Quota != "" {
			out.Message += " " + out.Quota
		}
		return &out
	}
	answer.Message = lead + " " + answer.Message
	return answer
}

// label names snapshot job ji by number, as messages name jobs.
func (f *cfFacts) label(ji int) string {
	if rec := f.rec(ji); rec != nil && rec.ID != 0 {
		return strconv.FormatInt(rec.ID, 10)
	}
	return f.s.Jobs[ji].ID
}

// goneOf marks the allocations ends and those of more gone, of n.
func goneOf(n int, ends []int, more [][]int) []bool {
	gone := make([]bool, n)
	for _, ai := range ends {
		gone[ai] = true
	}
	for _, allocs := range more {
		for _, ai := range allocs {
			gone[ai] = true
		}
	}
	return gone
}

// prune drops from chosen, which with ends gone gave the job room (won),
// each running job whose allocations it still gets room without, first
// to last, while passes are left: the fewest whose ends let it start
// past a reservation, which doubling over the soonest to end misses.
func (p *aheadPlay) prune(n int, ends []int, chosen [][]int, won outcome) ([][]int, outcome) {
	chosen = slices.Clone(chosen)
	for i := 0; i < len(chosen) && p.passes < maxAheadPasses; {
		without := slices.Delete(slices.Clone(chosen), i, i+1)
		if o := p.trial(goneOf(n, ends, without)); o.room {
			chosen, won = without, o
			continue
		}
		i++
	}
	return chosen, won
}

// othersWait says whether a job of job ji's pool other than it waits.
func othersWait(s *sched.Snapshot, ji int) bool {
	for i := range s.Jobs {
		if i != ji && s.Jobs[i].Pool == s.Jobs[ji].Pool && s.Jobs[i].Waiting > 0 {
			return true
		}
	}
	return false
}

// aheadAnswer is the answer once the jobs served before job ji are
// played out: the allocations gone must end for it to start (on the
// nodes at, where cf names nodes), and the jobs first would take some
// of what they free.
func (f *cfFacts) aheadAnswer(ji int, cf *api.Counterfactual, ask *aheadAsk, gone []int, at []sched.NodeSlots, first []int) *api.Counterfactual {
	s := f.s
	e := &s.Jobs[ji]
	out := &api.Counterfactual{Quota: cf.Quota, StartFirst: f.aheadRefs(first)}
	// The pass that starts it may serve it before the others, with more
	// gone than the last pass where they took what freed: the answer
	// then needs no more words.
	takers := ""
	if len(out.StartFirst) > 0 {
		takers = jobList(out.StartFirst) + " would take some of what they free (the pool's order serves " + them(len(out.StartFirst)) + " first)"
	}
	if ask.project >= 0 {
		out.MustEnd, out.NotBefore = f.heldRefs(gone)
		if takers != "" {
			takers = " (" + jobList(out.StartFirst) + " would take some of what they free first)"
		}
		out.Message = fmt.Sprintf("Only project %s's own work in pool %s ending would start it, not other projects': it could start once %s%s, or once the project's %s is raised. %s",
			s.Projects[ask.project].Name, s.Pools[e.Pool].Name, mustEndPhrase(out.MustEnd), takers, ask.what, cf.Quota)
		return out
	}
	// What each holds in the pool: what it frees may go to the jobs
	// served first, wherever they start.
	out.MustEnd, out.NotBefore = f.mustEnd(e, f.poolNodes(e), gone)
	for _, ns := range at {
		if int(ns.Node) < len(s.Nodes) && !slices.Contains(out.Nodes, s.Nodes[ns.Node].Name) {
			out.Nodes = append(out.Nodes, s.Nodes[ns.Node].Name)
		}
	}
	where := ""
	if len(out.Nodes) > 0 {
		where = " on " + strings.Join(out.Nodes, ", ")
	}
	out.Message = fmt.Sprintf("It could start%s once %s.", where, mustEndPhrase(out.MustEnd))
	if there, away := f.splitElsewhere(out, gone); len(away) > 0 && len(there) > 0 {
		out.Message = fmt.Sprintf("It could start%s once %s there and, on %s, %s for the jobs the pool serves before it.",
			where, mustEndPhrase(there), strings.Join(api.RunsOnOf(away), ", "), mustEndPhrase(away))
	}
	if takers != "" {
		out.Message = strings.TrimSuffix(out.Message, ".") + ": " + takers + "."
	}
	if out.Quota != "" {
		out.Message += " " + out.Quota
	}
	return out
}

// aheadOnly is the answer when even every running job the play-out may
// take away gone would not start job ji: the pool would serve the jobs
// first first, and it would still wait. No running job is named: none's
// end alone would start it.
func (f *cfFacts) aheadOnly(ji int, cf *api.Counterfactual, ask *aheadAsk, first []int) *api.Counterfactual {
	if len(first) == 0 {
		return cf // no other job takes the room: a rule holds it
	}
	s := f.s
	e := &s.Jobs[ji]
	out := &api.Counterfactual{Quota: cf.Quota, StartFirst: f.aheadRefs(first)}
	whose := "pool " + s.Pools[e.Pool].Name + "'s running jobs"
	if ask.project >= 0 {
		whose = "project " + s.Projects[ask.project].Name + "'s running work in pool " + s.Pools[e.Pool].Name
	}
	out.Message = fmt.Sprintf("No running job's end alone would start it now: were all of %s to end, the pool's order would serve %s first, and it would still wait.",
		whose, jobList(out.StartFirst))
	if out.Quota != "" {
		out.Message += " " + out.Quota
	}
	return out
}

// them is "it" for one job, "them" for more.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// aheadRefs names the jobs served first, with their slots per task, as
// Explanation.Ahead names the jobs ahead.
func (f *cfFacts) aheadRefs(jobs []int) []api.JobRef {
	var refs []api.JobRef
	for _, j := range jobs {
		ref := f.jobRef(j, nil)
		ref.Slots = f.s.Jobs[j].Slots
		refs = append(refs, ref)
	}
	return refs
}

// heldRefs names the jobs of the allocations gone, each once in their
// order, with the slots they hold there and the end of their time
// limits, and the last of those ends (now, if overdue): nil when one
// has none. A project's answer (projectCounterfactual) names them so.
func (f *cfFacts) heldRefs(gone []int) ([]api.JobRef, *time.Time) {
	s := f.s
	var refs []api.JobRef
	at := map[int]int{}
	for _, ai := range gone {
		a := &s.Allocs[ai]
		i, ok := at[a.Job]
		if !ok {
			i = len(refs)
			at[a.Job] = i
			ref := f.jobRef(a.Job, nil)
			ref.Slots = 0
			if t := jobEnd(s, a.Job); t != sched.Never {
				end := time.Unix(t, 0).UTC()
				ref.EndsAt = &end
			}
			refs = append(refs, ref)
		}
		refs[i].Slots += sched.Slots(a.Nodes)
	}
	return refs, lastEndOf(refs, s.Now)
}

// lastEndOf is the last EndsAt of refs, now if it has passed, nil when
// one of them has none.
func lastEndOf(refs []api.JobRef, now int64) *time.Time {
	var until int64
	for _, r := range refs {
		if r.EndsAt == nil {
			return nil
		}
		until = max(until, r.EndsAt.Unix())
	}
	if until == 0 {
		return nil
	}
	t := time.Unix(max(until, now), 0).UTC()
	return &t
}

// poolMore lists the running jobs on nodes, other than the allocations
// ends, that a play-out may take away: each as its allocations there,
// soonest to end first (endOf), then the most slots, then in the
// snapshot's order. An allocation with a part on a node outside nodes
// (drained, of another pool or type) is left out: its slots there would
// not free.
func (f *cfFacts) poolMore(nodes []*nodeUse, ends []int) [][]int {
	s := f.s
	on := map[string]bool{}
	for _, n := range nodes {
		on[n.name] = true
	}
	byJob := map[int][]int{}
	var jobs []int
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if slices.Contains(ends, ai) || len(a.Nodes) == 0 || slices.ContainsFunc(a.Nodes, func(ns sched.NodeSlots) bool {
			return int(ns.Node) >= len(s.Nodes) || !on[s.Nodes[ns.Node].Name]
		}) {
			continue
		}
		if _, ok := byJob[a.Job]; !ok {
			jobs = append(jobs, a.Job)
		}
		byJob[a.Job] = append(byJob[a.Job], ai)
	}
	return orderMore(s, jobs, byJob)
}

// orderMore orders the jobs' allocation lists soonest to end first, then
// the most slots, then by job.
func orderMore(s *sched.Snapshot, jobs []int, byJob map[int][]int) [][]int {
	end := func(j int) int64 {
		var t int64
		for _, ai := range byJob[j] {
			t = max(t, endOf(s, ai))
		}
		return t
	}
	slots := func(j int) int {
		n := 0
		for _, ai := range byJob[j] {
			n += sched.Slots(s.Allocs[ai].Nodes)
		}
		return n
	}
	slices.SortStableFunc(jobs, func(a, b int) int {
		return cmp.Or(cmp.Compare(end(a), end(b)), cmp.Compare(slots(b), slots(a)), cmp.Compare(a, b))
	})
	out := make([][]int, len(jobs))
	for i, j := range jobs {
		out[i] = byJob[j]
	}
	return out
}
