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
	world
	feed
	// byName maps job names to records, -1 once the job finished; it is
	// only kept when scripted events need it.
	byName map[string]int32
	// held are the scripted events that wait for a submission
	// (before.go).
	held heldEvents
	// nodeIdx maps node names to indices in the snapshot's nodes, when
	// node events need it.
	nodeIdx map[string]int32
	// gone are the nodes deleted (EventNodeDelete) and not back; own
	// the slots of the nodes reshaped (EventNodeReshape), by index.
	gone map[int32]bool
	own  map[int32]int
	// moved are the pools of the nodes a reshape moved, by index.
	moved map[int32]int
	// queued counts jobs with waiting tasks.
	queued  int
	nextSeq int64
	// reported is nextSeq when progress was last reported.
	reported int64

	rec recorder
	// ends applies the scripted ends of attempts (fail.go).
	ends scriptedEnds
	// fresh lists the jobs submitted at this instant (Options.Estimates).
	fresh []int32
	// later are the ends due at this instant that come after its
	// settling (JobSpec.EndsAfterPass, endafterpass.go).
	later []event
	// asked counts the checkpoints asked of each attempt (job, task
	// number, attempt) of the jobs whose checkpoints name an nth
	// (checkpointCost).
	asked map[[3]int32]int
	// killing is the sim's copy of the last kill's Outcome.Killing,
	// which it ends one by one (killings).
	killing []lifecycle.KillingTask
}

// world is the simulated cluster at time now and what it has promised:
// the scheduling state kept from pass to pass (c: the jobs, the roster
// of live ones with their snapshot entries, the task attempts), what the
// simulator keeps beside each of c's job records (jobs, at the same
// index), and the queue of events due (q). Its methods push the events
// a change of state promises (a scripted failure or loss, a trial's
// next report, a wake-up); the sim pops and handles them.
type world struct {
	now  int64
	q    queue
	c    lifecycle.Cluster
	jobs []job
}

// feed is the workload's job source with a one-job lookahead (next,
// when hasNext), each job checked against the input as it is read.
type feed struct {
	in *Input
	// projectIdx maps project names to indices in Input.Projects, and
	// accountIdx account names to indices in Input.Accounts: a job's
	// project and account are checked and, once submitted, resolved
	// with them.
	projectIdx map[string]int32
	accountIdx map[string]int32
	next       JobSpec
	hasNext    bool
}

func newSim(in *Input, opt Options) (*sim, error) {
	if err := checkInput(in); err != nil {
		return nil, err
	}
	if opt.MaxPasses <= 0 {
		opt.MaxPasses = 1000
	}
	s := &sim{in: in, opt: opt, byName: map[string]int32{}, held: heldEvents{later: map[string][]Event{}},
		feed: feed{in: in, projectIdx: make(map[string]int32, len(in.Projects)), accountIdx: make(map[string]int32, len(in.Accounts))}}
	snap := &s.c.Snap
	for i := range in.Projects {
		s.projectIdx[in.Projects[i].Name] = int32(i)
		snap.Projects = append(snap.Projects, in.Projects[i].Project)
	}
	for i := range in.Accounts {
		s.accountIdx[in.Accounts[i].Name] = int32(i)
	}
	snap.Accounts = slices.Clone(in.Accounts)
	snap.Licenses, snap.QOS = in.Licenses, in.QOS
	snap.NodesVersion = 1 // the Cluster names a new version when a node goes down or comes back
	for _, p := range in.Pools {
		snap.Pools = append(snap.Pools, p.Pool)
		snap.Nodes = append(snap.Nodes, p.Nodes...)
	}
	if err := s.indexNodes(); err != nil {
		return nil, err
	}
	s.ends = scriptedEnds{s}
	s.c.Configure(lifecycle.StepOptions{MaxPasses: opt.MaxPasses, Confirm: opt.confirm, NoShortcuts: opt.noPrefix, Inspect: opt.Inspect})
	s.c.Roster.NoRevs = opt.noRevs
	s.c.LostNodeGrace = in.LostNodeGrace
	s.c.Ledgers.ChargeAccounts(in.Decay, chargedSlots(in, nil, nil, nil), in.Accounts, in.Epoch)
	s.c.Ledgers.CountBudgets(snap.Projects)
	for i, e := range in.Events {
		if e.Before != "" {
			s.held.holdBefore(e.Before, int32(i))
			continue
		}
		s.q.push(event{at: e.At, kind: evScript, ref: int32(i)})
	}
	s.rec.init(s)
	return s, s.pull()
}

// pull reads the next job from the source into the one-job lookahead.
func (s *feed) pull() error {
	spec, err := s.in.Jobs.Next()
	if errors.Is(err, io.EOF) {
		s.hasNext = false
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading jobs: %w", err)
	}
	if s.hasNext && arrival(&spec) < arrival(&s.next) {
		return fmt.Errorf("job %q: submitted at %d, before the previous job (%d): jobs must come in submit order (first_pass where later)",
			spec.Name, arrival(&spec), arrival(&s.next))
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
func (s *feed) checkSpec(spec *JobSpec) error {
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
	case spec.MinSlots > 0 && tooElastic(spec):
		return fmt.Errorf("job %q: an elastic task's work of its runs × %d slots is too large", spec.Name, spec.Slots)
	case spec.Search != nil && len(spec.Runs) > 0:
		return fmt.Errorf("job %q: an experiment's trials run max_length × step_time, not runs", spec.Name)
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
	if s.hasNext && (!ok || arrival(&s.next) < t) {
		t, ok = arrival(&s.next), true
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
	if !s.hasNext {
		if err := s.held.check(s.in.Events); err != nil {
			return err
		}
	}
	if s.opt.Until >= 0 && s.opt.Until > s.now {
		s.rec.advance(s.opt.Until)
		s.c.Ledgers.Advance(s.c.Snap.Accounts, s.opt.Until)
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
	s.c.Ledgers.Advance(s.c.Snap.Accounts, t)
	s.now = t
	return true, s.step()
}

// step handles everything due now, then settles the cluster
// (lifecycle.Cluster.Step), reacting to each effect as it is applied
// (Applied).
func (s *sim) step() error {
	for !s.q.empty() && s.q.peek() == s.now && s.q.items[0].kind < evScript {
		if e := s.q.pop(); !holdLater(s, e) {
			s.handle(e)
		}
	}
	s.fresh = s.fresh[:0]
	for s.hasNext && arrival(&s.next) == s.now {
		if err := s.scriptBefore(s.next.Name); err != nil {
			return err
		}
		if s.next.AfterPass {
			if err := s.settleBefore(); err != nil {
				return err
			}
		}
		if s.opt.Estimates {
			s.fresh = append(s.fresh, s.c.NextJob()) // the index it will get
		}
		s.submit(s.next)
		if err := s.pull(); err != nil {
			return err
		}
	}
	for !s.q.empty() && s.q.peek() == s.now {
		if e := s.q.items[0]; e.kind == evScript && s.in.Events[e.ref].AfterPass {
			if err := s.settleBefore(); err != nil {
				return err
			}
		}
		// A scripted change or a wake-up: the instant is not quiet, even
		// where the change is to a job not yet submitted.
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventTick})
		s.handle(s.q.pop())
	}
	if len(s.later) > 0 {
		if err := s.settleBefore(); err != nil {
			return err
		}
	}
	if _, err := s.c.Step(s.now, s); err != nil {
		return fmt.Errorf("t=%d: %w", s.now, err)
	}
	s.rec.settled()
	if s.opt.Estimates && len(s.fresh) > 0 {
		s.recordEstimates(s.fresh)
	}
	return nil
}

// settleBefore settles the instant before a submission or a scripted
// event that a live master made after a pass (JobSpec.AfterPass,
// Event.AfterPass): Step, then the ends and
// checkpoint landings that it promised for this instant, until none is
// left, as the live master heard of them before the submission; the
// ends due that come after the instant's settling (later) come after
// its first Step.
func (s *sim) settleBefore() error {
	for {
		if _, err := s.c.Step(s.now, s); err != nil {
			return fmt.Errorf("t=%d: %w", s.now, err)
		}
		s.rec.settled()
		later := handleLater(s)
		if !later && (s.q.empty() || s.q.peek() != s.now || s.q.items[0].kind >= evScript) {
			return nil
		}
		for !s.q.empty() && s.q.peek() == s.now && s.q.items[0].kind < evScript {
			s.handle(s.q.pop())
		}
	}
}

func (s *sim) handle(e event) {
	switch e.kind {
	case evFail, evStartFail:
		s.ends.fail(e)
	case evStop:
		s.ends.stop(e)
	case evStartLost:
		s.ends.lostStart(e)
	case evAttemptLost:
		s.ends.lostAttempt(e)
	case evAgentPreempted:
		s.ends.agentPreempted(e)
	case evEnd:
		// A stale end or checkpoint (the task was re-planned since) is
		// dropped by Observe; an end that a raised time limit postponed
		// (set_time_limit) is promised again, later.
		if s.c.Tasks.Current(e.ref, e.ver) {
			t := s.c.Tasks.At(e.ref)
			if due, _ := t.Due(s.c.Jobs[t.Job].Shape); due > s.now {
				break
			}
		}
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventEnded, Task: e.ref, Ver: e.ver}); o.Applied {
			s.ended(e.ref, &o)
		}
	case evCheckpoint:
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventLanded, Task: e.ref, Ver: e.ver}); o.Applied {
			s.landed(e.ref, &o)
		}
	case evLeftLanded:
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventLeftLanded, Task: e.ref, Ver: e.ver}); o.Applied {
			s.leftLanded(&o)
		}
	case evKillEnd:
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: e.ref, Ver: e.ver}); o.Applied {
			s.killEnded(e.ref, &o, lifecycle.TaskKilling)
		}
	case evReport:
		// A preempted or ended trial's report is stale: its version moved.
		if s.c.Tasks.Current(e.ref, e.ver) {
			s.report(e.ref)
		}
	case evScript:
		s.script(s.in.Events[e.ref])
	case evGrace:
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventGraceOver, Node: e.ref}); o.Applied {
			s.lost(&o)
		}
	}
}

// wake asks for a pass at time at, when a thrash guard lifts.
func (s *world) wake(at int64) {
	s.q.push(event{at: at, kind: evWake})
}

// dropIdleWakes drops wake-ups due before anything else when no pass
// could use them: no job waits and no elastic task could grow. Nothing
// changes until the next other event, so they would only stretch the run.
func (s *sim) dropIdleWakes() {
	for !s.q.empty() && s.q.items[0].kind == evWake && s.queued == 0 && !s.c.MayGrow() {
		if s.hasNext && arrival(&s.next) <= s.q.peek() {
			return
		}
		s.q.pop()
	}
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
	entry := snapEntry(&spec, s.nextSeq, qp, acct)
	// A job of no tasks ends at once (Over), before any scripted change
	// waiting for it could apply.
	o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventSubmit, Entry: &entry,
		Submission: lifecycle.Submission{Tasks: spec.Tasks, Fresh: freshWork(&spec), Works: taskWorks(&spec), Shape: shapeOf(&spec),
			FailOnPreempt: spec.OnPreempt == PreemptFail, MaxRetries: spec.MaxRetries, Experiment: spec.Kind == sched.KindExperiment,
			Project: qp, Account: acct, Held: spec.Held}})
	ji := o.Job
	if int(ji) == len(s.jobs) {
		s.jobs = append(s.jobs, job{})
	}
	j := &s.jobs[ji]
	*j = job{spec: spec, seq: s.nextSeq, estimate: -1, project: s.rec.project(spec.Project), qp: qp, acct: acct}
	if spec.Search != nil {
		j.search = newJobSearch(spec.Search, !s.opt.OmitJobs)
	}
	if len(s.in.Events) > 0 {
		s.byName[spec.Name] = ji
	}
	s.rec.submitted(ji)
	s.touch(ji)
	for _, e := range s.held.later[spec.Name] {
		s.script(e)
	}
	delete(s.held.later, spec.Name)
	if o.Over {
		s.finished(ji)
	}
}

// touch reports a job's demand and queued state to the metrics after any
// change to its tasks. Demand is the slots its live tasks would hold if
// they all ran, capped by max_concurrent.
func (s *sim) touch(ji int32) { s.touchAs(ji, !s.c.Jobs[ji].State.Terminal()) }

// touchAs is touch for a job that is alive or not: a job that
// lifecycle.Cluster.Observe has finished is reported first as it was
// just before, as when the simulator finished jobs itself.
func (s *sim) touchAs(ji int32, alive bool) {
	j, lj := &s.jobs[ji], &s.c.Jobs[ji]
	demand, queued := 0, false
	if alive {
		demand = min(lj.Waiting+lj.Active, j.spec.MaxConcurrent) * j.spec.Slots
		queued = lj.Waiting > 0
	}
	s.rec.demand(ji, demand-j.demand)
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
	if e.Kind.node() {
		s.nodeEvent(e)
		return
	}
	ji, ok := s.byName[e.Job]
	if !ok {
		s.held.later[e.Job] = append(s.held.later[e.Job], e)
		return
	}
	if ji < 0 || s.c.Jobs[ji].State.Terminal() {
		return // the job has finished
	}
	j := &s.jobs[ji]
	switch e.Kind {
	case EventSetPriority:
		j.spec.Priority = e.Priority
		if c := j.spec.Class; c != nil {
			// Moving across the LOW band changes what may preempt it.
			c.applyClass(e.Priority, &j.spec.Preemptible, &j.spec.Borrow, &j.spec.Interactive)
		}
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventPriority, Job: ji, Priority: e.Priority,
			Preemptible: j.spec.Preemptible, Borrow: j.spec.Borrow, Interactive: j.spec.Interactive})
	case EventSetWeight:
		j.spec.Weight = e.Weight
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventWeight, Job: ji, Weight: e.Weight})
	case EventSetTimeLimit:
		j.spec.TimeLimit = e.TimeLimit
		o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventTimeLimit, Job: ji, Limit: e.TimeLimit})
		for _, ti := range o.Retimed {
			// Promised again at the new limit, or now where it has
			// passed; the end promised before is dropped if not due.
			t := s.c.Tasks.At(ti)
			if end, _ := t.Due(s.c.Jobs[ji].Shape); end >= 0 {
				s.q.push(event{at: max(end, s.now), kind: evEnd, ref: ti, ver: t.Ver})
			}
		}
	case EventSetQOS:
		j.spec.QOS = e.QOS
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventQOS, Job: ji, QOS: e.QOS})
	case EventSetNice:
		j.spec.Nice = e.Nice
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventNice, Job: ji, Nice: e.Nice})
	case EventHold:
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventHold, Job: ji})
	case EventRelease:
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventRelease, Job: ji})
	case EventRequeue:
		o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventRequeue, Job: ji, Hold: e.Hold})
		s.rec.lostWork += o.LostWork
		for _, ti := range o.Requeued {
			s.requeued(ti)
		}
	case EventKill:
		if o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji}); o.Applied {
			s.killed(ji, o.Freed, o.Killing)
		}
	}
}

// killed reacts to the kill of job ji, which freed the records freed,
// left those killing killing and finished the job.
func (s *sim) killed(ji int32, freed []lifecycle.Freed, killing []lifecycle.KillingTask) {
	// The metrics hear of the tasks one by one, each with what the job
	// held after it, as if they had been freed one by one.
	held := s.c.Jobs[ji].Held
	for _, f := range freed {
		held += f.Slots
	}
	for _, f := range freed {
		// Only a draining record (a move's or resize's, a lost gang's
		// parts), or a task whose move or resize the kill abandoned, left
		// killing on its old placement (what it let go of of its
		// reservation): no attempt ends here (killings ends them). As at
		// a landing, the metrics count a draining record's own slots as
		// checkpointing since it was asked, and no reservation.
		t := s.c.Tasks.At(f.Task)
		if t.Moving && f.From == lifecycle.TaskPreempting {
			s.rec.checkpointed(int64(sched.Slots(t.Nodes)) * (s.now - t.Asked))
		}
		held -= f.Slots
		s.released(f.Task, f.Slots, held, lifecycle.TaskRunning) // its checkpoint counted above
	}
	if len(killing) > 0 || s.c.Jobs[ji].Active > 0 {
		// Its killing tasks hold their slots until their kill's end, after
		// which the job is reported ended (killEnded): those the kill left
		// killing (ended here, or later where the kill takes its time),
		// and one its time limit left killing before (its kill's end
		// already promised), which the kill leaves alone.
		s.touch(ji)
		s.killings(killing)
		return
	}
	s.finished(ji)
}
