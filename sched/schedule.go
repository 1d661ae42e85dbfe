package sched

import (
	"fmt"
	"slices"
)

// Scheduler runs scheduling passes. Apart from OmitBehind its fields are
// scratch memory reused from one pass to the next, and answers kept from
// the previous pass (the node index, and per Job.Rev the queue orders and
// job checks) that hold as long as the caller keeps the promises of
// Snapshot.NodesVersion and Job.Rev, and sorted lists kept only as a
// starting point (sortmemo.go); none of it changes a result. The zero
// value is ready to use. A Scheduler is not safe for concurrent use.
type Scheduler struct {
	// OmitBehind, when set, stops a FIFO pool, and a priority pool without
	// backfill, at its first blocked job, and an EASY pool once no slot is
	// left to backfill: the jobs queued after that get no Pending entry,
	// where they would get ReasonBehind (or, under EASY, a reason they
	// cannot start now). Starts and preemptions are the same either way. A caller that shows reasons
	// only now and then (the simulator, which explains waiting jobs at the
	// end of a run) saves a walk over the whole queue on every pass.
	OmitBehind bool

	// base is the snapshot's cluster as indexed, kept from one pass to the
	// next so that update re-indexes only what changed; st is the copy a
	// pass plans on.
	base     state
	st       state
	shadow   state
	plan     Plan
	arena    []NodeSlots
	scratch  []NodeSlots
	probe    []NodeSlots
	run      []int32
	planned  []int32
	holds    []int32
	holdsAll []int32
	pending  []bool
	turns    turns
	evicted  []bool
	final    []bool // evicted by a committed statement
	// vic and pre are the pass's victim lists and preemption search
	// (passparts.go).
	vic      victimLists
	pre      preemptor
	poolJobs [][]int32
	zeroJobs [][]int32
	poolRuns [][]int32
	ends     []release
	fs       fairShare
	quota    quotaPass
	fsLive   []int32
	profile  profile
	mf       mfPass
	lic      licensePass
	elastic  elasticPass
	cons     consolidation
	nprof    nodeProfile
	proms    []promise
	order    []int32
	// promisedNow marks the jobs whose carried reservation entered this
	// conservative pass's profile.
	promisedNow []bool
	// memo keeps per-job answers from one pass to the next (jobmemo.go).
	memo jobMemo
	// finds keeps the placements that failed on the state as it is.
	finds findMemo
	// orders keeps the pass's long sorted lists for the next pass to
	// repair, with allocs pairing the allocations they list (sortmemo.go).
	orders orderMemo
	allocs allocMatch
	// stg holds the policy stages (policies.go).
	stg  stages
	pass pass
}

// Schedule runs one pass with a fresh Scheduler.
func Schedule(s *Snapshot) (*Plan, error) {
	var sc Scheduler
	return sc.Schedule(s)
}

// Schedule runs one scheduling pass over the snapshot. It returns an error,
// and no plan, when the snapshot is inconsistent.
func (sc *Scheduler) Schedule(s *Snapshot) (*Plan, error) {
	return sc.schedule(s, declare)
}

// schedule runs a pass with each pool's stages taken from policy: the
// built-in table (declare), or, in tests, a policy composed otherwise.
func (sc *Scheduler) schedule(s *Snapshot, policy func(*Pool) stageList) (*Plan, error) {
	sc.memo.begin(s)
	if err := validate(s, &sc.mf.parents, &sc.memo); err != nil {
		sc.forget()
		return nil, err
	}
	if err := sc.base.update(s); err != nil {
		sc.forget()
		return nil, err
	}
	sc.memo.nodes(sc.base.builds)
	sc.st.copyFrom(&sc.base)
	sc.reset(s)
	// The pass lives in the Scheduler: the stages take it through
	// interfaces, and its parts point back to it, which would move a
	// local one to the heap every pass.
	p := sc.begin(s)
	for pool := range s.Pools {
		sl := policy(&s.Pools[pool])
		p.runStages(pool, &sl)
	}
	sc.end() // keep no snapshot past the pass
	sc.memo.end()
	sc.orders.end()
	sc.allocs.end()
	return &sc.plan, nil
}

// forget drops what a failed pass's predecessor left to be kept.
func (sc *Scheduler) forget() {
	sc.memo.drop()
	sc.orders.drop()
	sc.allocs.drop()
}

// validate checks the snapshot; parents is scratch memory, kept by the
// caller so that a steady-state pass allocates nothing. Every job is
// checked in one loop (validateJob), except those memo, when not nil,
// says were checked in the previous pass against the same world.
func validate(s *Snapshot, parents *[]bool, memo *jobMemo) error {
	for i := range s.Pools {
		switch s.Pools[i].Policy {
		case PolicyFIFO, PolicyBackfill, PolicyFairShare, PolicyPriority, PolicyQuota, PolicyMultifactor:
		default:
			return fmt.Errorf("pool %q: unknown policy %q", s.Pools[i].Name, s.Pools[i].Policy)
		}
	}
	if err := validateProjects(s); err != nil {
		return err
	}
	fairTree, err := validateMultifactor(s, parents)
	if err != nil {
		return err
	}
	if err := validateLicenses(s); err != nil {
		return err
	}
	var accountParents []bool
	if fairTree {
		accountParents = *parents
	}
	for i := range s.Jobs {
		if memo != nil && memo.validated(i) {
			continue
		}
		if err := validateJob(s, &s.Jobs[i], accountParents); err != nil {
			return &JobError{Job: s.Jobs[i].ID, Err: err}
		}
		if memo != nil {
			memo.note(i)
		}
	}
	return validateMoving(s)
}

// JobError is a snapshot refused for one job's fields, which a caller
// may leave out of its next snapshot rather than plan nothing at all.
// Its message is the job's error as it is.
type JobError struct {
	// Job is the job's ID in the snapshot.
	Job string
	Err error
}

func (e *JobError) Error() string { return e.Err.Error() }

func (e *JobError) Unwrap() error { return e.Err }

// validateJob checks one job's fields against the snapshot.
func validateJob(s *Snapshot, j *Job, parents []bool) error {
	if j.Pool >= 0 && j.Pool < len(s.Pools) && s.Pools[j.Pool].Policy == PolicyQuota &&
		(j.Project < 0 || j.Project >= len(s.Projects)) {
		return fmt.Errorf("job %q: runs in quota pool %q but its project index %d is out of range",
			j.ID, s.Pools[j.Pool].Name, j.Project)
	}
	switch {
	case j.Pool < 0 || j.Pool >= len(s.Pools):
		return fmt.Errorf("job %q: pool index %d out of range", j.ID, j.Pool)
	case j.Slots < 0:
		return fmt.Errorf("job %q: negative slots %d", j.ID, j.Slots)
	case j.Waiting < 0:
		return fmt.Errorf("job %q: negative waiting count %d", j.ID, j.Waiting)
	case j.MaxRunning < 0:
		return fmt.Errorf("job %q: negative max running %d", j.ID, j.MaxRunning)
	case !(j.Weight > 0):
		return fmt.Errorf("job %q: weight must be positive, got %v", j.ID, j.Weight)
	}
	if err := validateJobMultifactor(s, j, parents); err != nil {
		return err
	}
	if err := validateJobElastic(j); err != nil {
		return err
	}
	if len(j.Licenses) > 0 {
		return validateJobLicenses(s, j)
	}
	return nil
}

// validateProjects checks that parents exist and the tree has no cycle.
func validateProjects(s *Snapshot) error {
	for i := range s.Projects {
		pr := &s.Projects[i]
		if pr.Quota < 0 || pr.Limit < 0 || pr.OverQuotaWeight < 0 {
			return fmt.Errorf("project %q: negative quota, limit or weight", pr.Name)
		}
		at, depth := pr.Parent, 0
		for at >= 0 {
			if at >= len(s.Projects) {
				return fmt.Errorf("project %q: parent index %d out of range", pr.Name, at)
			}
			if depth++; depth > len(s.Projects) {
				return fmt.Errorf("project %q: its parents form a cycle", pr.Name)
			}
			at = s.Projects[at].Parent
		}
	}
	return nil
}

// reset sizes the per-pass scratch and sorts jobs and allocations by pool.
func (sc *Scheduler) reset(s *Snapshot) {
	sc.plan.Starts = sc.plan.Starts[:0]
	sc.plan.Preemptions = sc.plan.Preemptions[:0]
	sc.plan.Pending = sc.plan.Pending[:0]
	sc.plan.Moves = sc.plan.Moves[:0]
	sc.plan.Resizes = sc.plan.Resizes[:0]
	sc.arena = sc.arena[:0]
	nj := len(s.Jobs)
	sc.run = resize(sc.run, nj)
	sc.planned = resize(sc.planned, nj)
	sc.holds = resize(sc.holds, nj)
	sc.pending = resize(sc.pending, nj)
	sc.turns.reset(nj)
	sc.evicted = resize(sc.evicted, len(s.Allocs))
	sc.final = resize(sc.final, len(s.Allocs))
	sc.vic.preempts = resize(sc.vic.preempts, len(s.Projects))
	sc.vic.allocProject = resize(sc.vic.allocProject, len(s.Allocs))
	sc.poolJobs = resizeLists(sc.poolJobs, len(s.Pools))
	sc.zeroJobs = resizeLists(sc.zeroJobs, len(s.Pools))
	sc.poolRuns = resizeLists(sc.poolRuns, len(s.Pools))
	sc.mf.reset(s)
	sc.lic.reset(s)
	sc.elastic.reset(s)
	sc.cons.reset(len(s.Pools))
	sc.orders.begin(len(s.Pools))
	var jobOld []int32
	if sc.memo.on {
		jobOld = sc.memo.oldOf
	}
	sc.allocs.begin(s, jobOld)
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if !a.Preempting {
			sc.run[a.Job]++
		}
		j := &s.Jobs[a.Job]
		sc.poolRuns[j.Pool] = append(sc.poolRuns[j.Pool], int32(ai))
		sc.vic.allocProject[ai] = -1
		if j.Project >= 0 && j.Project < len(s.Projects) {
			sc.vic.allocProject[ai] = int32(j.Project)
		}
	}
	for ji := range s.Jobs {
		j := &s.Jobs[ji]
		if j.Slots == 0 {
			sc.zeroJobs[j.Pool] = append(sc.zeroJobs[j.Pool], int32(ji))
		} else {
			sc.poolJobs[j.Pool] = append(sc.poolJobs[j.Pool], int32(ji))
		}
	}
}

func resizeLists(l [][]int32, n int) [][]int32 {
	for len(l) < n {
		l = append(l, nil)
	}
	l = l[:n]
	for i := range l {
		l[i] = l[i][:0]
	}
	return l
}

// pass is the working context of one Schedule call.
type pass struct {
	sc   *Scheduler
	s    *Snapshot
	st   *state
	plan *Plan

	vic     *victimLists
	pre     *preemptor
	cons    *consolidation
	lic     *licensePass
	nprof   *nodeProfile
	elastic *elasticPass
	finds   *findMemo

	// drained is 0 until anyDrained has looked, then 1 for no drained
	// node, 2 for some (drained.go).
	drained int8
	// hold is set while the task being placed may only be held, not
	// start (a quota limit its project's draining tasks still fill:
	// admitHold, admitPreemptOnly); commit then holds it.
	hold bool
}

// lessFIFO orders by submit time, then submission sequence, then ID.
func lessFIFO(a, b *Job) int {
	switch {
	case a.Submit != b.Submit:
		return cmp64(a.Submit, b.Submit)
	case a.Seq != b.Seq:
		return cmp64(a.Seq, b.Seq)
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

func cmp64(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func (p *pass) sortFIFO(jobs []int32) {
	slices.SortFunc(jobs, func(a, b int32) int { return lessFIFO(&p.s.Jobs[a], &p.s.Jobs[b]) })
}

func (p *pass) sortPriority(jobs []int32) {
	slices.SortFunc(jobs, func(a, b int32) int {
		ja, jb := &p.s.Jobs[a], &p.s.Jobs[b]
		if ja.Priority != jb.Priority {
			return ja.Priority - jb.Priority
		}
		return lessFIFO(ja, jb)
	})
}

// wants reports whether job j has a waiting task it may start now.
func (p *pass) wants(j int32) bool {
	job := &p.s.Jobs[j]
	pl := p.sc.planned[j]
	return int(pl) < job.Waiting && int(p.sc.run[j]+pl) < job.MaxRunning
}

// capped reports a job with waiting tasks that may not run more at once.
func (p *pass) capped(j int32) bool {
	job := &p.s.Jobs[j]
	return int(p.sc.planned[j]) < job.Waiting && int(p.sc.run[j]+p.sc.planned[j]) >= job.MaxRunning
}

func (p *pass) request(j int32, useDrain bool) request {
	job := &p.s.Jobs[j]
	return request{
		pool:      job.Pool,
		gpu:       job.GPU,
		slots:     p.elastic.size(j),
		spread:    p.s.Pools[job.Pool].Placement == PlaceSpread,
		useDrain:  useDrain,
		oneSwitch: job.Topology == TopologyRequired,
	}
}

// outcome is what happened to one task placement attempt.
type outcome uint8

const (
	failed  outcome = iota
	started         // the task starts in this plan
	held            // slots are claimed but still draining from victims
)

// tryPlace places one task of j on free slots, then on draining ones. A
// task that may only be held (pass.hold) looks at both at once, and moves
// no other task to make room: it does not start in this pass anyway.
func (p *pass) tryPlace(j int32, backfill bool) outcome {
	if !p.lic.licensesFit(j) {
		return failed
	}
	r := p.request(j, p.hold)
	nodes, ok := p.finds.find(p.st, &r, p.sc.scratch[:0])
	if !ok && !r.useDrain {
		r.useDrain = true
		nodes, ok = p.finds.find(p.st, &r, p.sc.scratch[:0])
	}
	p.sc.scratch = nodes[:0]
	if !ok {
		if p.hold {
			return failed
		}
		return p.cons.consolidate(j, &r, backfill)
	}
	return p.commit(j, nodes, backfill)
}

// commit takes a placement: a start when all its slots are free, else a
// hold on draining slots. A task that may only be held (pass.hold) is
// held wherever it is placed, on draining slots first, so that it takes
// the place of the work that drains and leaves free slots to work that
// can start.
func (p *pass) commit(j int32, nodes []NodeSlots, backfill bool) outcome {
	out := held
	if !p.hold && p.st.canStart(nodes) {
		out = started
		at := len(p.sc.arena)
		p.sc.arena = append(p.sc.arena, nodes...)
		p.plan.Starts = append(p.plan.Starts, Start{
			Job: int(j), Nodes: p.sc.arena[at:len(p.sc.arena):len(p.sc.arena)], Backfill: backfill,
		})
	}
	if p.hold {
		p.st.takeDrainingFirst(nodes)
	} else {
		p.st.takeAll(nodes)
	}
	p.lic.takeLicenses(j)
	p.sc.planned[j]++
	if out == held {
		p.sc.holds[j]++
	}
	return out
}

// impossible reports, and records as no_nodes, a job whose task no node
// of its pool could ever hold. Such a job must never block a queue or take
// a reservation.
func (p *pass) impossible(j int32) bool {
	job := &p.s.Jobs[j]
	if job.Slots == 0 || !p.hasWaiting(j) {
		return false
	}
	memo := p.sc.memo.on && len(job.Licenses) == 0 // license answers depend on the pass
	if memo {
		if f := &p.sc.memo.curFacts[j]; f.fit == fitSome {
			return false
		} else if f.fit == fitNever {
			p.addPending(Pending{Job: int(j), Reason: f.reason, Blocker: -1, Need: int(f.need), Free: int(f.free), At: -1})
			return true
		}
	}
	r := p.request(j, true)
	r.slots = p.elastic.minSize(j)
	var fits bool
	switch {
	case r.oneSwitch && p.st.spansNodes(&r):
		fits = p.st.fitsOneSwitch(&r)
	case job.GPU == "":
		fits = r.slots <= p.st.largest[job.Pool]
	default:
		fits = p.fitsEmpty(&r)
	}
	if fits {
		if memo {
			p.sc.memo.curFacts[j].fit = fitSome
		}
		return len(job.Licenses) > 0 && p.lic.licenseNever(j)
	}
	reason, most := ReasonNoNodes, 0
	if job.GPU != "" && !p.gpuOffered(job) {
		reason = ReasonGPUType
	} else if !r.oneSwitch {
		most, _, _ = p.st.capacity(&r, p.s) // gangs may use every matching node
		// With the drained nodes resumed, as Feasible counts them at
		// submit. A node drained without a change of the layout (which
		// would drop the memo) is full: held and own are equal there.
		held, own := p.drainedSlots(&r)
		most += own - held
	}
	if memo {
		p.sc.memo.curFacts[j] = jobFacts{valid: p.sc.memo.curFacts[j].valid, fit: fitNever,
			reason: reason, need: r.slots, free: int32(most)}
	}
	p.addPending(Pending{Job: int(j), Reason: reason, Blocker: -1, Need: int(r.slots), Free: most, At: -1})
	return true
}

// gpuOffered reports whether some node of the job's pool has its GPU type.
func (p *pass) gpuOffered(job *Job) bool {
	for _, gi := range p.st.poolGroups[job.Pool] {
		if g := &p.st.groups[gi]; g.gpu == job.GPU && len(g.nodes) > 0 {
			return true
		}
	}
	return false
}

func (p *pass) fitsEmpty(r *request) bool {
	_, _, fits := p.st.capacity(r, p.s)
	return fits
}

// failReason explains why one task of j cannot be placed.
func (p *pass) failReason(j int32) Pending {
	if !p.lic.licensesFit(j) {
		return p.lic.licensePending(j)
	}
	r := p.request(j, true)
	r.slots = p.elastic.minSize(j) // an elastic job waits only once every size failed
	total, avail, fits := p.st.capacity(&r, p.s)
	// What drained nodes hold now is gone once their tasks end: a job that
	// only they could hold waits for a resume (no_nodes names the drain).
	held, own := p.drainedSlots(&r)
	pe := Pending{Job: int(j), Blocker: -1, Need: int(r.slots), Free: avail, At: -1}
	switch {
	case !fits || total-held < int(r.slots):
		pe.Reason, pe.Free = ReasonNoNodes, total-held+own // the most the nodes hold, resumed
		if r.gpu != "" && !p.gpuOffered(&p.s.Jobs[j]) {
			pe.Reason, pe.Free = ReasonGPUType, 0
		}
	case avail < int(r.slots):
		pe.Reason = ReasonNoCapacity
	case r.oneSwitch && p.st.spansNodes(&r):
		pe.Reason = ReasonTopology
	default:
		pe.Reason = ReasonFragmented
	}
	return pe
}

// addPending records the reason for a job once; later calls are ignored so
// that the first, most specific reason wins.
func (p *pass) addPending(pe Pending) {
	if p.sc.pending[pe.Job] {
		return
	}
	p.sc.pending[pe.Job] = true
	p.sc.turns.add(&pe, len(p.plan.Pending))
	p.plan.Pending = append(p.plan.Pending, pe)
}

// behind records that j waits behind blocker.
func (p *pass) behind(j, blocker int32, r Reason) {
	job := &p.s.Jobs[j]
	p.addPending(Pending{Job: int(j), Reason: r, Blocker: int(blocker), Need: job.Slots, At: -1})
}

// finish gives a reason to a job that is left with waiting tasks that did
// not start, unless a more specific reason was recorded already.
func (p *pass) finish(j int32) {
	job := &p.s.Jobs[j]
	startedN := p.sc.planned[j] - p.sc.holds[j]
	if p.sc.pending[j] || int(startedN) >= job.Waiting {
		return
	}
	switch {
	case p.sc.holds[j] > 0:
		p.addPending(Pending{Job: int(j), Reason: ReasonCheckpointing, Blocker: -1, Need: int(p.elastic.size(j)), At: -1})
	case p.capped(j):
		p.addPending(Pending{Job: int(j), Reason: ReasonMaxConcurrent, Blocker: -1, Need: job.Slots, At: -1})
	default:
		p.addPending(p.failReason(j))
	}
}
