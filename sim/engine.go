package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// job is what the simulator keeps about a submitted job beside the
// lifecycle's record of it (sim.c.Jobs at the same index, which counts
// its tasks and says its state): the spec and what the metrics and
// results need. Records are reused with the lifecycle's, once a finished
// job has left the roster, so the slice grows with the live state, not
// with the trace.
type job struct {
	spec JobSpec
	seq  int64
	// qp is the job's index in Input.Projects, or -1; acct its index in
	// Input.Accounts, or -1.
	qp   int32
	acct int32
	// prio is the job's multifactor priority when it first started, for
	// its result; hasPrio says it was recorded.
	prio float64
	// attempts are the job's task attempts, when Options.Attempts is set;
	// the job's result takes them over when it is reported.
	attempts []Attempt
	// search is the experiment's search, for a job with a searcher.
	search *jobSearch
	// estimate is the forecast start recorded at submission
	// (Options.Estimates), -1 for none.
	estimate int64
	// project is the job's index in the metrics collector; demand and
	// queued are what was last reported to it (see touch).
	project int32
	queued  bool
	hasPrio bool
	demand  int
	// busy is the time the job held at least one slot, up to busySince
	// when it holds slots now.
	busy      int64
	busySince int64
}

type sim struct {
	in  *Input
	opt Options
	now int64
	q   queue
	// c is the scheduling state kept from pass to pass: the jobs, the
	// roster of live ones with their snapshot entries, the task attempts.
	// jobs holds what the simulator keeps beside each of c's job records,
	// at the same index.
	c    lifecycle.Cluster
	jobs []job
	// byName maps job names to records, -1 once the job finished; it is
	// only kept when scripted events need it.
	byName map[string]int32
	later  map[string][]Event // scripted changes for jobs not yet submitted
	// projectIdx maps project names to indices in Input.Projects, and
	// accountIdx account names to indices in Input.Accounts.
	projectIdx map[string]int32
	accountIdx map[string]int32
	// multifactor: some pool runs the multifactor policy.
	multifactor bool
	// queued counts jobs with waiting tasks.
	queued  int
	next    JobSpec
	hasNext bool
	nextSeq int64
	// reported is nextSeq when progress was last reported.
	reported int64

	scheduler sched.Scheduler
	snap      sched.Snapshot
	// oneShot: every pool's policy gives a maximal plan, so applying a plan
	// without preemptions and planning again would start nothing.
	oneShot bool
	// reserves: some pool backfills conservatively and reads the
	// reservations carried from pass to pass (keepReservations).
	reserves bool
	// prefix is the FIFO window (prefix.go), 0 when off; cut says the last
	// snapshot left jobs out; zeroSlotJobs counts live zero-slot jobs,
	// which turn the window off.
	// full says a pass may be skipped while every slot is held
	// (fullSkips); the slots held are the Cluster's InUse.
	full         bool
	lastInUse    int // InUse after the last instant's passes (quietInstant)
	prefix       int
	cut          bool
	lastBlocked  bool
	zeroSlotJobs int

	rec recorder
	// killed is kill's scratch.
	killed []lifecycle.Freed
	// fresh lists the jobs submitted at this instant (Options.Estimates).
	fresh []int32
}

func newSim(in *Input, opt Options) (*sim, error) {
	if err := checkInput(in); err != nil {
		return nil, err
	}
	if opt.MaxPasses <= 0 {
		opt.MaxPasses = 1000
	}
	s := &sim{in: in, opt: opt, byName: map[string]int32{}, later: map[string][]Event{},
		projectIdx: make(map[string]int32, len(in.Projects)), accountIdx: make(map[string]int32, len(in.Accounts))}
	s.oneShot = !opt.confirm
	for i := range in.Projects {
		s.projectIdx[in.Projects[i].Name] = int32(i)
		s.snap.Projects = append(s.snap.Projects, in.Projects[i].Project)
	}
	for i := range in.Accounts {
		s.accountIdx[in.Accounts[i].Name] = int32(i)
	}
	s.snap.Accounts = slices.Clone(in.Accounts)
	s.snap.Licenses, s.snap.QOS = in.Licenses, in.QOS
	s.snap.NodesVersion = 1 // the nodes never change during a run
	for _, p := range in.Pools {
		s.snap.Pools = append(s.snap.Pools, p.Pool)
		s.snap.Nodes = append(s.snap.Nodes, p.Nodes...)
		if p.Policy != sched.PolicyFIFO && p.Policy != sched.PolicyBackfill {
			s.oneShot = false
		}
		s.multifactor = s.multifactor || p.Policy == sched.PolicyMultifactor
		s.reserves = s.reserves || (p.Backfill || p.Policy == sched.PolicyBackfill) && p.Reservations == sched.ReserveConservative
	}
	if prefixEligible(in, &opt) {
		s.prefix = initialWindow
	}
	s.full = fullSkips(in, &opt)
	s.c.NoRevs = opt.noRevs
	s.c.ChargeAccounts(in.Decay, chargedSlots(in), in.Accounts, in.Epoch)
	s.c.CountBudgets(s.snap.Projects)
	for i, e := range in.Events {
		s.q.push(event{at: e.At, kind: evScript, ref: int32(i)})
	}
	s.rec.init(s)
	return s, s.pull()
}

// pull reads the next job from the source into the one-job lookahead.
func (s *sim) pull() error {
	spec, err := s.in.Jobs.Next()
	if errors.Is(err, io.EOF) {
		s.hasNext = false
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading jobs: %w", err)
	}
	if s.hasNext && spec.Submit < s.next.Submit {
		return fmt.Errorf("job %q: submitted at %d, before the previous job (%d): jobs must come in submit order",
			spec.Name, spec.Submit, s.next.Submit)
	}
	if spec.Pool < 0 || spec.Pool >= len(s.in.Pools) {
		return fmt.Errorf("job %q: pool index %d out of range", spec.Name, spec.Pool)
	}
	for _, u := range spec.Licenses {
		if u.License < 0 || u.License >= len(s.in.Licenses) || u.Count < 1 {
			return fmt.Errorf("job %q: license use %+v is not one of the input's %d licenses, or not positive", spec.Name, u, len(s.in.Licenses))
		}
	}
	if spec.QOS < 0 || spec.QOS > 0 && spec.QOS >= len(s.in.QOS) {
		return fmt.Errorf("job %q: QOS index %d out of range (%d QOS)", spec.Name, spec.QOS, len(s.in.QOS))
	}
	if _, ok := s.projectIdx[spec.Project]; !ok && s.in.Pools[spec.Pool].Policy == sched.PolicyQuota {
		return fmt.Errorf("job %q: pool %q divides its slots by project quota, but the job's project %q is not one of the input's projects",
			spec.Name, s.in.Pools[spec.Pool].Name, spec.Project)
	}
	if err := s.checkSpec(&spec); err != nil {
		return err
	}
	s.next, s.hasNext = spec, true
	return nil
}

// checkSpec checks a job's account and elastic sizes: a job in a
// multifactor pool that weighs fair share charges an account of the
// input, and an elastic job's work (Duration × Slots) is a number.
func (s *sim) checkSpec(spec *JobSpec) error {
	pl := &s.in.Pools[spec.Pool]
	_, known := s.accountIdx[spec.Account]
	switch {
	case spec.Account != "" && !known:
		return fmt.Errorf("job %q: account %q is not one of the input's accounts", spec.Name, spec.Account)
	case !known && pl.Policy == sched.PolicyMultifactor && pl.Multifactor.FairShare > 0:
		return fmt.Errorf("job %q: pool %q weighs fair share, but the job charges no account of the input", spec.Name, pl.Name)
	case spec.MinSlots < 0 || spec.MinSlots > spec.Slots:
		return fmt.Errorf("job %q: min slots %d outside 0..%d (its slots)", spec.Name, spec.MinSlots, spec.Slots)
	case spec.MinSlots > 0 && spec.Duration != Unbounded && spec.Duration > math.MaxInt64/int64(spec.Slots):
		return fmt.Errorf("job %q: elastic work of %d s × %d slots is too large", spec.Name, spec.Duration, spec.Slots)
	case spec.Search != nil:
		return checkSearch(spec)
	}
	return nil
}

// nextTime is the time of the next event or submission.
func (s *sim) nextTime() (int64, bool) {
	t, ok := int64(0), false
	if !s.q.empty() {
		t, ok = s.q.peek(), true
	}
	if s.hasNext && (!ok || s.next.Submit < t) {
		t, ok = s.next.Submit, true
	}
	return t, ok
}

func (s *sim) loop() error {
	first := true
	for {
		ok, err := s.tick()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if s.opt.Progress != nil && (first || s.nextSeq-s.reported >= 1024) {
			s.reported = s.nextSeq
			s.opt.Progress(s.now, int(s.nextSeq))
		}
		first = false
	}
	if s.opt.Until >= 0 && s.opt.Until > s.now {
		s.rec.advance(s.opt.Until)
		s.c.Advance(s.snap.Accounts, s.opt.Until)
		s.now = s.opt.Until
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.now, int(s.nextSeq))
	}
	return nil
}

// tick moves the clock to the next instant with something due and handles
// it. It reports false when nothing is left before the end of the run.
func (s *sim) tick() (bool, error) {
	s.dropIdleWakes()
	t, ok := s.nextTime()
	if !ok || (s.opt.Until >= 0 && t > s.opt.Until) {
		return false, nil
	}
	s.rec.advance(t)
	s.c.Advance(s.snap.Accounts, t)
	s.now = t
	return true, s.step()
}

// step handles everything due now, then schedules until nothing changes.
func (s *sim) step() error {
	for !s.q.empty() && s.q.peek() == s.now && s.q.items[0].kind < evScript {
		s.handle(s.q.pop())
	}
	s.fresh = s.fresh[:0]
	smallest := math.MaxInt // the smallest job submitted now
	for s.hasNext && s.next.Submit == s.now {
		smallest = min(smallest, s.next.Slots)
		if s.opt.Estimates {
			s.fresh = append(s.fresh, s.nextJobSlot())
		}
		s.submit(s.next)
		if err := s.pull(); err != nil {
			return err
		}
	}
	scripted := false
	for !s.q.empty() && s.q.peek() == s.now {
		scripted = true
		s.handle(s.q.pop())
	}
	if s.quietInstant(smallest, scripted) {
		s.lastInUse = s.c.InUse()
		s.rec.settled()
		if s.opt.Estimates && len(s.fresh) > 0 {
			s.recordEstimates()
		}
		return nil
	}
	for pass := 0; ; pass++ {
		if s.full && s.oneShot && s.zeroSlotJobs == 0 && s.c.InUse() >= s.rec.totalSlots {
			break // nothing can start on a full cluster (fullSkips)
		}
		if pass == s.opt.MaxPasses {
			return fmt.Errorf("t=%d: scheduling did not settle after %d passes", s.now, pass)
		}
		starts, preempts, err := s.schedule()
		if err != nil {
			return fmt.Errorf("t=%d: %w", s.now, err)
		}
		if s.cut && !s.lastBlocked {
			s.prefix *= 2 // the window held no blocked job: look further
			continue
		}
		// A FIFO or backfill pool schedules once per event, as the
		// textbook algorithms do: FIFO and EASY plans are maximal, so a
		// confirming pass would change nothing, and conservative
		// backfilling compresses its reservations once per event, as
		// Mu'alem and Feitelson do; a second compression could in
		// principle move a reservation earlier, but on the traces a
		// confirming pass changes nothing for any of the three
		// (TestConfirmingPassChangesNothing replays with it forced on).
		if lifecycle.Settled(starts, preempts, s.oneShot) {
			break
		}
	}
	if s.prefix > 0 {
		s.prefix = initialWindow
	}
	s.lastInUse = s.c.InUse()
	s.rec.settled()
	if s.opt.Estimates && len(s.fresh) > 0 {
		s.recordEstimates()
	}
	return nil
}

// quietInstant reports an instant at which a pass could start nothing,
// so the simulator skips it (fullSkips' inputs only): no slot was freed
// since the last pass, which left nothing more that could start, no
// scripted event came, and every job submitted now needs more slots than
// are free. Under FIFO and EASY a job that arrives behind the queue can
// only start on slots free now, and the jobs before it are as stuck as
// they were; time passing makes no EASY backfill easier.
func (s *sim) quietInstant(smallest int, scripted bool) bool {
	return s.full && s.oneShot && s.zeroSlotJobs == 0 && !scripted && s.c.InUse() >= s.lastInUse &&
		smallest > s.rec.totalSlots-s.c.InUse()
}

func (s *sim) handle(e event) {
	switch e.kind {
	case evEnd:
		if s.c.Tasks.Current(e.ref, e.ver) {
			s.endTask(e.ref)
		}
	case evCheckpoint:
		if s.c.Tasks.Current(e.ref, e.ver) {
			s.checkpointed(e.ref)
		}
	case evReport:
		// A preempted or ended trial's report is stale: its version moved.
		if s.c.Tasks.Current(e.ref, e.ver) {
			s.report(e.ref)
		}
	case evScript:
		s.script(s.in.Events[e.ref])
	}
}

// wake asks for a pass at time at, when a thrash guard lifts.
func (s *sim) wake(at int64) {
	s.q.push(event{at: at, kind: evWake})
}

// dropIdleWakes drops wake-ups due before anything else when no pass
// could use them: no job waits and no elastic task could grow. Nothing
// changes until the next other event, so they would only stretch the run.
func (s *sim) dropIdleWakes() {
	for !s.q.empty() && s.q.items[0].kind == evWake && s.queued == 0 && !s.mayGrow() {
		if s.hasNext && s.next.Submit <= s.q.peek() {
			return
		}
		s.q.pop()
	}
}

// mayGrow reports a running elastic task below its full size.
func (s *sim) mayGrow() bool {
	for _, ti := range s.c.Tasks.Running() {
		t := s.c.Tasks.At(ti)
		if spec := &s.jobs[t.Job].spec; t.Alive && !t.Moving && spec.MinSlots > 0 && sched.Slots(t.Nodes) < spec.Slots {
			return true
		}
	}
	return false
}

func (s *sim) submit(spec JobSpec) {
	qp, acct := int32(-1), int32(-1)
	if p, ok := s.projectIdx[spec.Project]; ok {
		qp = p
	}
	if a, ok := s.accountIdx[spec.Account]; ok {
		acct = a
	}
	s.nextSeq++
	ji := s.c.Submit(lifecycle.Submission{Tasks: spec.Tasks, Fresh: freshWork(&spec), Shape: shapeOf(&spec),
		FailOnPreempt: spec.OnPreempt == PreemptFail, MaxRetries: spec.MaxRetries, Project: qp, Account: acct},
		snapEntry(&spec, s.nextSeq, qp, acct))
	if int(ji) == len(s.jobs) {
		s.jobs = append(s.jobs, job{})
	}
	j := &s.jobs[ji]
	*j = job{spec: spec, seq: s.nextSeq, estimate: -1, project: s.rec.project(spec.Project), qp: qp, acct: acct}
	if spec.Search != nil {
		j.search = newJobSearch(spec.Search, !s.opt.OmitJobs)
	}
	if spec.MinSlots > 0 {
		// An elastic task may grow in a pass after the one that started
		// it, even under FIFO: every pass must be confirmed.
		s.oneShot = false
	}
	if spec.Slots == 0 {
		s.zeroSlotJobs++
	}
	if len(s.in.Events) > 0 {
		s.byName[spec.Name] = ji
	}
	s.rec.submitted(ji)
	s.touch(ji)
	for _, e := range s.later[spec.Name] {
		s.script(e)
	}
	delete(s.later, spec.Name)
	if spec.Tasks == 0 && s.c.Jobs[ji].Alive {
		s.finishJob(ji, lifecycle.JobCompleted)
	}
}

// touch reports a job's demand and queued state to the metrics after any
// change to its tasks. Demand is the slots its live tasks would hold if
// they all ran, capped by max_concurrent.
func (s *sim) touch(ji int32) {
	j, lj := &s.jobs[ji], &s.c.Jobs[ji]
	demand, queued := 0, false
	if lj.Alive {
		demand = min(lj.Waiting+lj.Running, j.spec.MaxConcurrent) * j.spec.Slots
		queued = lj.Waiting > 0
	}
	s.rec.demand(j.project, demand-j.demand)
	j.demand = demand
	if queued != j.queued {
		j.queued = queued
		if queued {
			s.rec.queue(1)
			s.queued++
		} else {
			s.rec.queue(-1)
			s.queued--
		}
	}
}

func (s *sim) script(e Event) {
	ji, ok := s.byName[e.Job]
	if !ok {
		s.later[e.Job] = append(s.later[e.Job], e)
		return
	}
	if ji < 0 {
		return // the job has finished
	}
	j := &s.jobs[ji]
	switch e.Kind {
	case EventSetPriority:
		j.spec.Priority = e.Priority
		if c := j.spec.Class; c != nil {
			// Moving across the LOW band changes what may preempt it.
			c.applyClass(e.Priority, &j.spec.Preemptible, &j.spec.Borrow)
		}
		s.c.SetPriority(ji, e.Priority, j.spec.Preemptible, j.spec.Borrow)
	case EventSetWeight:
		j.spec.Weight = e.Weight
		s.c.SetWeight(ji, e.Weight)
	case EventKill:
		s.kill(ji)
	}
}

func (s *sim) kill(ji int32) {
	if !s.c.Jobs[ji].Alive {
		return
	}
	s.killed = s.c.Kill(s.killed[:0], ji)
	// The metrics hear of the tasks one by one, each with what the job
	// held after it, as if they had been freed one by one.
	held := s.c.Jobs[ji].Held
	for _, f := range s.killed {
		held += f.Slots
	}
	for _, f := range s.killed {
		if t := s.c.Tasks.At(f.Task); !t.Moving {
			s.rec.endAttempt(t, AttemptCanceled)
		}
		held -= f.Slots
		s.released(f.Task, f.Slots, held)
	}
	s.finishJob(ji, lifecycle.JobKilled)
}
