package master

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// The counterfactual of an explanation: the least that would let a waiting
// job start now, found on the last pass's snapshot.

// nodeUse is one node of the pool in the counterfactual: its free slots and
// the running allocations on it, soonest to end first.
type nodeUse struct {
	name   string
	slots  int
	free   int
	allocs []int // indexes into the snapshot's Allocs
}

// cfFacts is what a counterfactual is found on: a snapshot (the last
// pass's for explain, a dry run's settled copy for a dry run), the
// configuration its pools were made from, and the records of its jobs.
type cfFacts struct {
	s   *sched.Snapshot
	cfg *config.Config
	// rec is the record of the snapshot's job ji, nil when unknown.
	rec func(ji int) *store.Job
	// running is how many tasks of the job asked about hold slots now
	// (starting, running, preempting or killing), for its own cap.
	running int
	// gone names a pool's nodes that are not up (Master.goneNodes); nil
	// where unknown.
	gone func(pool string) string
	// away is the nodes not up that a job too big for the nodes up
	// waits for, and why it cannot run even with them back
	// (awayView.judge); nil where unknown.
	away func(e *sched.Job) ([]awayNode, error)
	// ask is what the answer that counterfactual gave takes away, for
	// its play-out (playAhead); nil where no running job's end is named.
	ask *aheadAsk
	// resized maps the allocations a resize leaves draining to the
	// task's resize (resizedAllocs); nil where none is.
	resized map[int]api.SlotChange
	// shares are the jobs' fair shares (fairShares), once sharesDone.
	shares     []int
	sharesDone bool
	// mf are the multifactor priorities of s's jobs where the maker
	// computed them once for many jobs (preemptNotes); nil: whoever
	// needs them computes them (mfCouldPreempt).
	mf []sched.Factors
	// byID indexes the jobs of s's allocations by number where the
	// maker did so for many jobs (preemptNotes), whose refs are all of
	// running jobs; nil: preemptibleRef scans s's jobs.
	byID map[int64]int
}

// liveFacts are the counterfactual's facts of the last pass, for the
// snapshot's job ji (its running tasks). Callers hold mu.
func liveFacts(m *Master, ji int) *cfFacts {
	r := &m.planner.roster
	f := &cfFacts{s: &m.planner.snap, cfg: m.cfg, rec: func(i int) *store.Job {
		if i < 0 || i >= r.size() || r.at(i) == nil {
			return nil
		}
		return &r.at(i).rec
	}, gone: m.goneNodes, resized: resizedAllocs(m.planner)}
	f.away = func(e *sched.Job) ([]awayNode, error) {
		return newAwayView(m, m.planner.view.pools, &m.planner.snap).judge(e)
	}
	if ji >= 0 && ji < r.size() {
		if j := r.at(ji); j != nil {
			f.running = j.active()
		}
	}
	return f
}

// counterfactual finds the least that would let job ji start now.
func (f *cfFacts) counterfactual(ji int) *api.Counterfactual {
	s := f.s
	e := &s.Jobs[ji]
	need := e.SmallestTask()
	drained, never := f.unplaceable(ji, e)
	if never != nil {
		return never
	}
	if cf := limitNever(f, ji); cf != nil {
		return cf // explainquota.go: no job's end would help
	}
	if cf := f.licenseShort(e); cf != nil {
		return cf
	}
	if need == 0 {
		return f.zeroSlotCounterfactual(e)
	}
	if cf := capped(e, f.rec(ji), f.running); cf != nil {
		return cf
	}
	nodes := f.poolNodes(e)
	if total := slotsOf(nodes); total < need && len(drained) > 0 {
		return drainedCounterfactual(drained)
	}
	why, bind, pr := f.quotaBind(ji, need)
	if bind == bindLimit || bind == bindWithin {
		// Room on the nodes would not start it: its project's would.
		if cf := f.projectCounterfactual(e, need, bind, pr, why); cf != nil {
			return cf
		}
	}
	cf := &api.Counterfactual{Quota: why}
	// Other jobs' ends first: the job ending would not start its own
	// waiting tasks (explainown.go).
	chosen, ends, own := endsFor(s, nodes, ji, need)
	for _, n := range chosen {
		cf.Nodes = append(cf.Nodes, n.name)
	}
	cf.MustEnd, cf.NotBefore = f.mustEnd(e, chosen, ends)
	if len(cf.MustEnd) > 0 {
		f.ask = &aheadAsk{ends: ends, project: -1}
	}
	switch {
	case own:
		rec := f.rec(ji)
		if rec != nil {
			cf.MustEnd = withoutJob(cf.MustEnd, rec.ID)
		}
		cf.Message = ownEndMessage(cf.Nodes, cf.MustEnd)
	case len(cf.MustEnd) == 0:
		cf.Message = fitsNowMessage(need, cf.Nodes, f.idleRule(e))
		f.ask = untimedAsk(s, ji) // explainuntimed.go
	default:
		cf.Message = f.mustEndMessage(ji, cf)
	}
	if cf.Quota != "" {
		cf.Message += " " + cf.Quota
	}
	return cf
}

// endsFor picks where a task of job ji (need slots) could start soonest
// on nodes, and the allocations that would have to end there (pickNodes):
// other jobs' first; its own too (own) where theirs would not free
// enough and it holds slots there, as its ending would not start its own
// waiting tasks (explainown.go). The counterfactual and a waiting job's
// listed preemption note (preemptListNote) both ask it.
func endsFor(s *sched.Snapshot, nodes []*nodeUse, ji, need int) (chosen []*nodeUse, ends []int, own bool) {
	chosen, ends = pickNodes(s, othersOnly(s, nodes, ji), need)
	own = !freesEnough(s, chosen, ends, need) && holdsOwn(s, nodes, ji)
	if own {
		chosen, ends = pickNodes(s, nodes, need)
	}
	return chosen, ends, own
}

// jobLabel names a job in a message as the CLI names jobs: "10 (big)";
// a dry run's job (no number yet) by its name.
func jobLabel(rec store.Job) string {
	if rec.ID == 0 && rec.Name != "" {
		return rec.Name // a dry run's job, which has no number
	}
	if rec.Name == "" {
		return strconv.FormatInt(rec.ID, 10)
	}
	return fmt.Sprintf("%d (%s)", rec.ID, rec.Name)
}

// mayPreempt says whether running jobs of snapshot pool pool may be
// preempted to make room: never in FIFO and backfill pools; in the others
// with the pool's preemption, a priority or multifactor pool's backfill
// (backfilled jobs yield), or a QOS that preempts even without it.
func (f *cfFacts) mayPreempt(pool int) bool {
	s := f.s
	if pool < 0 || pool >= len(s.Pools) {
		return true
	}
	pi := f.cfg.PoolIndex(s.Pools[pool].Name)
	if pi < 0 {
		return true
	}
	pl := &f.cfg.Pools[pi]
	switch pl.Policy {
	case sched.PolicyFIFO, sched.PolicyBackfill:
		return false
	case sched.PolicyPriority, sched.PolicyMultifactor:
		return pl.Preemption || pl.Backfill || slices.ContainsFunc(f.cfg.QOS, func(q spec.QOS) bool { return q.Preempt })
	}
	return pl.Preemption || pl.Policy == sched.PolicyQuota
}

// idleRule names the rule that keeps job e off the slots idle behind a
// blocked job ranked before it, "" for none: a priority pool with
// backfill gives them only to preemptible jobs of lower priority than the
// blocked job (sched's idleGate), so a job that is not preemptible, or
// one with the priority of a waiting job ranked before it, waits.
func (f *cfFacts) idleRule(e *sched.Job) string {
	s := f.s
	if e.Pool < 0 || e.Pool >= len(s.Pools) {
		return ""
	}
	if pl := &s.Pools[e.Pool]; pl.Policy != sched.PolicyPriority || !pl.Backfill {
		return ""
	}
	if !e.Preemptible {
		return "only preemptible jobs may start on slots idle behind a job ranked before it (priority backfill), " +
			"and it is not preemptible: it starts once no job ranked before it waits and no rule holds it back."
	}
	for i := range s.Jobs {
		o := &s.Jobs[i]
		if o == e || o.Pool != e.Pool || o.Waiting == 0 || o.Priority != e.Priority ||
			o.Submit > e.Submit || (o.Submit == e.Submit && o.Seq > e.Seq) {
			continue
		}
		label := o.ID
		if rec := f.rec(i); rec != nil {
			label = jobLabel(*rec)
		}
		return fmt.Sprintf("only preemptible jobs of lower priority than the job blocked before them may start on slots idle behind it (priority backfill), "+
			"and job %s waiting before it has its priority (%d): it starts once no job of its priority or higher ranked before it waits and no rule holds it back.",
			label, e.Priority)
	}
	return ""
}

// couldPreempt says whether the allocation ai could be preempted for job
// e by the pool's policy: never a job that is not preemptible (the core
// takes no victim of one) nor in a pool that never preempts (mayPreempt);
// in a priority pool, when it is backfilled in a pool that backfills, or
// its job is less important than e (a larger number), or e's QOS preempts
// and the job's QOS ranks below it: a job of the same priority is never
// preempted for it, so "ends or is preempted" would mislead. Other
// policies preempt by rules of their own: quota and fair share are
// replayed (quotaCouldPreempt, shareCouldPreempt), and so is
// multifactor's QOS rule (mfCouldPreempt).
func (f *cfFacts) couldPreempt(e *sched.Job, ai int) bool {
	s := f.s
	a := &s.Allocs[ai]
	v := &s.Jobs[a.Job]
	if !v.Preemptible || !f.mayPreempt(e.Pool) {
		return false
	}
	pi := -1
	if e.Pool >= 0 && e.Pool < len(s.Pools) {
		pi = f.cfg.PoolIndex(s.Pools[e.Pool].Name)
	}
	if pi >= 0 && f.cfg.Pools[pi].Policy == sched.PolicyQuota {
		return f.quotaCouldPreempt(e, ai)
	}
	if pi >= 0 && f.cfg.Pools[pi].Policy == sched.PolicyFairShare {
		return f.shareCouldPreempt(e, ai)
	}
	if pi >= 0 && f.cfg.Pools[pi].Policy == sched.PolicyMultifactor {
		return f.mfCouldPreempt(e, ai) // explainmf.go
	}
	if pi < 0 || f.cfg.Pools[pi].Policy != sched.PolicyPriority {
		return true
	}
	qos := func(j *sched.Job) sched.QOS {
		if j.QOS >= 0 && j.QOS < len(s.QOS) {
			return s.QOS[j.QOS]
		}
		return sched.QOS{}
	}
	pl, eq := &f.cfg.Pools[pi], qos(e)
	byPriority := pl.Preemption && e.Priority < v.Priority
	byQOS := eq.Preempt && qos(v).Priority < eq.Priority
	return (pl.Backfill && a.Backfilled) || byPriority || byQOS
}

// mustEnd names the jobs of the allocations ends (on the chosen nodes),
// each once, soonest to end first: what each holds on those nodes, the
// last end of its allocations there that must end, and whether it must
// end, could be preempted for e, or is being preempted (Alloc.Preempting:
// the core already asked it to stop), and, for one being preempted, by
// when its checkpoints there are due (checkpointBy). notBefore is the
// last end of those that must end (now, if they are overdue), nil when
// one of them has no time limit or none must end.
func (f *cfFacts) mustEnd(e *sched.Job, chosen []*nodeUse, ends []int) (refs []api.JobRef, notBefore *time.Time) {
	s := f.s
	byJob := map[int]int{}
	last := map[int]int64{}
	// A job is being preempted when all its allocations here are, could
	// be when each of the others could be, else it must end.
	class := map[int]string{}
	for _, ai := range ends {
		a := &s.Allocs[ai]
		if _, ok := byJob[a.Job]; !ok {
			byJob[a.Job] = len(refs)
			refs = append(refs, f.jobRef(a.Job, chosen))
			class[a.Job] = api.PreemptUnderWay
		}
		last[a.Job] = max(last[a.Job], a.End(s.Jobs))
		switch {
		case a.Preempting:
		case f.couldPreempt(e, ai):
			if class[a.Job] == api.PreemptUnderWay {
				class[a.Job] = api.PreemptPossible
			}
		default:
			class[a.Job] = ""
		}
	}
	var until int64
	bounded := true
	for j, i := range byJob {
		r := &refs[i]
		r.Preempt = class[j]
		if r.Preempt == api.PreemptUnderWay {
			r.Resize, r.CheckpointBy = f.resizeOfRef(j, ends), checkpointBy(s, j, ends)
		}
		if end := last[j]; end != sched.Never {
			t := time.Unix(end, 0).UTC()
			r.EndsAt = &t
		}
		if r.Preempt == "" {
			bounded = bounded && r.EndsAt != nil
			until = max(until, last[j])
		}
	}
	if bounded && until > 0 {
		// A limit already run out is overdue, not in the past to wait for.
		t := time.Unix(max(until, s.Now), 0).UTC()
		notBefore = &t
	}
	return refs, notBefore
}

// capped is the counterfactual of a job that runs as many tasks as its
// max_concurrent allows: free slots elsewhere would not start it, one of
// its own tasks ending would. It counts the tasks holding slots now, not
// the last pass's allocations, which miss the tasks that pass started.
// Nil when the cap does not hold it.
func capped(e *sched.Job, rec *store.Job, running int) *api.Counterfactual {
	if e.MaxRunning <= 0 || rec == nil || running < e.MaxRunning {
		return nil
	}
	field, value, detail := capOf(e, rec)
	tasks := "tasks"
	if field == "max_concurrent_trials" {
		tasks = "trials"
	}
	limit := fmt.Sprintf("%s is %d%s and %d of its %s run", field, value, detail, running, tasks)
	return &api.Counterfactual{Limit: limit,
		Message: fmt.Sprintf("It runs as many %s as its %s (%d) allows: the next starts when one of its own %s ends.",
			tasks, field, value, tasks)}
}

// capOf names the job file's field that caps e's running tasks
// (lifecycle.MaxRunning: an experiment's max_concurrent_trials, which a
// scenario spells max_concurrent, or max_slots over the slots of a task),
// its value, and for max_slots how many tasks that is ("(2 tasks of 4
// slots)").
func capOf(e *sched.Job, r *store.Job) (field string, value int, detail string) {
	if r.MaxSlots > 0 && r.Slots > 0 && max(r.MaxSlots/r.Slots, 1) == e.MaxRunning &&
		(r.MaxConcurrent <= 0 || r.MaxConcurrent > e.MaxRunning) {
		return "max_slots", r.MaxSlots, fmt.Sprintf(" (%s of %s)", plural.Count(e.MaxRunning, "task"), plural.Count(r.Slots, "slot"))
	}
	if r.Kind == store.KindExperiment {
		return "max_concurrent_trials", e.MaxRunning, ""
	}
	return "max_concurrent", e.MaxRunning, ""
}

// poolNodes lists the nodes of e's pool that match its GPU type.
func (f *cfFacts) poolNodes(e *sched.Job) []*nodeUse {
	s := f.s
	byNode := map[int32]*nodeUse{}
	var out []*nodeUse
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Pool != e.Pool || (e.GPU != "" && n.GPU != e.GPU) || n.Drained {
			// A drained node takes no new work, however soon its tasks end.
			continue
		}
		u := &nodeUse{name: n.Name, slots: n.Slots, free: n.Slots}
		byNode[int32(i)] = u
		out = append(out, u)
	}
	for ai := range s.Allocs {
		for _, ns := range s.Allocs[ai].Nodes {
			if u := byNode[ns.Node]; u != nil {
				u.free -= int(ns.Slots)
				u.allocs = append(u.allocs, ai)
			}
		}
	}
	for _, u := range out {
		slices.SortStableFunc(u.allocs, func(a, b int) int {
			return cmp.Compare(endOf(s, a), endOf(s, b))
		})
	}
	return out
}

// pickNodes chooses where a task of need slots could start soonest: one
// node when it fits one (the node needing the fewest running jobs to end,
// then the soonest), else the nodes with the most free slots together; it
// returns them and the allocations that would have to end there.
func pickNodes(s *sched.Snapshot, nodes []*nodeUse, need int) ([]*nodeUse, []int) {
	var best *nodeUse
	var bestEnds []int
	for _, n := range nodes {
		if n.slots < need {
			continue
		}
		ends := fewestEnds(s, n, need)
		if !freesEnough(s, []*nodeUse{n}, ends, need) {
			// Nothing that may end there frees enough (a job's own
			// tasks left out, othersOnly): no start there to name, however
			// few the ends (trial r R1 named a node of the job's own tasks).
			continue
		}
		if best == nil || len(ends) < len(bestEnds) ||
			(len(ends) == len(bestEnds) && lastEnd(s, ends) < lastEnd(s, bestEnds)) {
			best, bestEnds = n, ends
		}
	}
	if best != nil {
		return []*nodeUse{best}, bestEnds
	}
	// A gang: the emptiest nodes first, then what ends soonest on them.
	sorted := slices.Clone(nodes)
	slices.SortStableFunc(sorted, func(a, b *nodeUse) int { return cmp.Compare(b.free, a.free) })
	var chosen []*nodeUse
	total := 0
	for _, n := range sorted {
		if total >= need {
			break
		}
		chosen = append(chosen, n)
		total += n.slots
	}
	free := 0
	var all []int
	for _, n := range chosen {
		free += n.free
		all = append(all, n.allocs...)
	}
	slices.SortStableFunc(all, func(a, b int) int { return cmp.Compare(endOf(s, a), endOf(s, b)) })
	var ends []int
	for _, ai := range all {
		if free >= need {
			break
		}
		free += sched.Slots(s.Allocs[ai].Nodes)
		ends = append(ends, ai)
	}
	return chosen, ends
}

// allocSlotsOn is what an allocation holds on node n.
func allocSlotsOn(a *sched.Alloc, n *nodeUse, s *sched.Snapshot) int {
	for _, ns := range a.Nodes {
		if int(ns.Node) < len(s.Nodes) && s.Nodes[ns.Node].Name == n.name {
			return int(ns.Slots)
		}
	}
	return 0
}

func lastEnd(s *sched.Snapshot, allocs []int) int64 {
	var t int64
	for _, ai := range allocs {
		t = max(t, endOf(s, ai))
	}
	return t
}

// endOf is when allocation ai gives its slots back as far as the
// counterfactual knows: now when it is being preempted (its checkpoint
// is under way), else the end of its time limit, or sched.Never.
func endOf(s *sched.Snapshot, ai int) int64 {
	if s.Allocs[ai].Preempting {
		return s.Now
	}
	return s.Allocs[ai].End(s.Jobs)
}

// maxSubsetAllocs bounds the allocations of a node whose subsets
// fewestEnds searches; past it, the soonest to end are taken in turn.
const maxSubsetAllocs = 10

// fewestEnds chooses the allocations on node n that must end for need
// slots to be free there: the fewest jobs that free enough, then the
// soonest last end, then the fewest slots, then the first in n's order
// (soonest to end first), so that the answer is minimal and the same
// each time, whether or not the jobs have time limits.
func fewestEnds(s *sched.Snapshot, n *nodeUse, need int) []int {
	if n.free >= need {
		return nil
	}
	if len(n.allocs) > maxSubsetAllocs {
		free, ends := n.free, []int(nil)
		for _, ai := range n.allocs {
			if free >= need {
				break
			}
			free += allocSlotsOn(&s.Allocs[ai], n, s)
			ends = append(ends, ai)
		}
		return ends
	}
	type choice struct {
		jobs, slots int
		end         int64
		set         uint32
	}
	// Each allocation's facts once: the subsets read them 2^n times.
	k := len(n.allocs)
	// same[i] marks the allocations before i of i's job: a job counts
	// once in a set, at its first allocation there.
	slots, endAt, same := make([]int, k), make([]int64, k), make([]uint32, k)
	for i, ai := range n.allocs {
		slots[i], endAt[i] = allocSlotsOn(&s.Allocs[ai], n, s), endOf(s, ai)
		for h := range i {
			if s.Allocs[n.allocs[h]].Job == s.Allocs[ai].Job {
				same[i] |= 1 << h
			}
		}
	}
	// best is a value, not a pointer to the loop's c, which made every
	// subset a heap allocation (a pass asks it too: preemptListNote).
	var best choice
	found := false
	for set := uint32(1); set < 1<<k; set++ {
		c := choice{set: set}
		free := n.free
		for i := range k {
			if set&(1<<i) == 0 {
				continue
			}
			free += slots[i]
			c.slots += slots[i]
			c.end = max(c.end, endAt[i])
			if set&same[i] == 0 {
				c.jobs++
			}
		}
		if free < need {
			continue
		}
		if !found || cmp.Or(cmp.Compare(c.jobs, best.jobs), cmp.Compare(c.end, best.end),
			cmp.Compare(c.slots, best.slots), cmp.Compare(reverseBits(best.set), reverseBits(c.set))) < 0 {
			best, found = c, true
		}
	}
	var ends []int
	for i, ai := range n.allocs {
		if found && best.set&(1<<i) != 0 {
			ends = append(ends, ai)
		}
	}
	return ends
}

// reverseBits orders subsets by their first members: the set holding
// the earlier allocation of n's order ranks first.
func reverseBits(set uint32) uint32 {
	var r uint32
	for i := 0; i < maxSubsetAllocs; i++ {
		if set&(1<<i) != 0 {
			r |= 1 << (maxSubsetAllocs - 1 - i)
		}
	}
	return r
}

// jobRef names snapshot job ji, with the slots it holds on nodes.
func (f *cfFacts) jobRef(ji int, nodes []*nodeUse) api.JobRef {
	s := f.s
	var ref api.JobRef
	for ai := range s.Allocs {
		if a := &s.Allocs[ai]; a.Job == ji {
			for _, n := range nodes {
				ref.Slots += allocSlotsOn(a, n, s)
			}
		}
	}
	if rec := f.rec(ji); rec != nil {
		ref.ID, ref.Name, ref.User, ref.Project = rec.ID, rec.Name, rec.User, rec.Project
	} else if id, err := strconv.ParseInt(s.Jobs[ji].ID, 10, 64); err == nil {
		ref.ID = id
	}
	return ref
}
