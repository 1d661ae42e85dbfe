package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sched"
)

// State is a job's state in a result.
type State string

// Job states in results.
const (
	StatePending   State = "pending"
	StateRunning   State = "running"
	StateCompleted State = "completed"
	StateKilled    State = "killed"
	// StateFailed: a task was preempted and its exit actions said not to
	// reschedule it (on_preempt: fail, or max_retries used up).
	StateFailed State = "failed"
)

// stateOf names a job state of the shared vocabulary (lifecycle.JobState,
// which the master persists) in results, whose names are a public
// contract older than the vocabulary: queued is pending here, and the
// others keep their names. The simulator's failed is the shared failed,
// reached only one way (StateFailed).
func stateOf(st lifecycle.JobState) State {
	switch st {
	case lifecycle.JobQueued:
		return StatePending
	case lifecycle.JobRunning:
		return StateRunning
	case lifecycle.JobCompleted:
		return StateCompleted
	case lifecycle.JobFailed:
		return StateFailed
	case lifecycle.JobKilled:
		return StateKilled
	}
	// The lifecycle gives its jobs no other state.
	panic(fmt.Sprintf("sim: job state %q has no name in results", st))
}

// Result is the outcome of a run; its JSON form is a public contract:
// fields may be added, never renamed or removed.
type Result struct {
	// Jobs is empty when the run was asked to omit per-job results.
	Jobs []JobResult `json:"jobs"`
	// Timeline is nil when it was not recorded.
	Timeline []TimelineEntry `json:"timeline,omitempty"`
	Metrics  Metrics         `json:"metrics"`
	// Series is the run's state over time, when it was recorded.
	Series *metrics.Series `json:"series,omitempty"`
	// Projects are the input's quota projects, with the slots each held
	// over time; absent when the input has none.
	Projects []ProjectResult `json:"projects,omitempty"`
	// Accounts are the input's fair-share accounts with their decayed
	// usage when the run stopped; absent when the input has none.
	Accounts []AccountResult `json:"accounts,omitempty"`
	// Skipped counts input records that could not be replayed; Notes
	// tell how the input was interpreted (a trace's cluster size, missing
	// time limits).
	Skipped []Skip   `json:"skipped,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// End is the clock when the run stopped.
	End int64 `json:"-"`
	// TotalSlots is the cluster's size in slots.
	TotalSlots int `json:"-"`
}

// JobResult is one job's outcome. Start, End and Wait are nil when the job
// never started or has not ended.
type JobResult struct {
	Name   string `json:"name"`
	State  State  `json:"state"`
	Submit int64  `json:"submit"`
	Start  *int64 `json:"start"`
	End    *int64 `json:"end"`
	Wait   *int64 `json:"wait"`
	// Estimate is the start the live master would have forecast at the
	// job's submission (Options.Estimates; sched.Forecast), when it had
	// one.
	Estimate    *int64 `json:"estimate,omitempty"`
	Preemptions int    `json:"preemptions"`
	// Reason explains, for a job still waiting when the run stopped, why
	// it waits.
	Reason string `json:"reason,omitempty"`
	// Project is the job's project, when it has one.
	Project string `json:"project,omitempty"`
	// Account is the fair-share account the job charges, when it has one.
	Account string `json:"account,omitempty"`
	// Priority is, for a job of a multifactor pool, the priority it had
	// when it first started, or for one that never started its priority
	// when the run stopped (higher runs first).
	Priority *float64 `json:"priority,omitempty"`
	// Attempts lists every attempt of the job's tasks in start order, when
	// the run records them (Options.Attempts).
	Attempts []Attempt `json:"attempts,omitempty"`
	// Search is an experiment's search, for a job with a searcher: which
	// trials the searcher promoted and stopped, at which step and rung.
	Search *SearchResult `json:"search,omitempty"`
	seq    int64
}

// TimelineEntry gives the slots each job holds after a change.
type TimelineEntry struct {
	Time  int64          `json:"time"`
	Slots map[string]int `json:"slots"`
}

// Metrics summarise a run. docs/metrics.md defines each one.
type Metrics struct {
	// Makespan runs from the first submission to the last end (or to the
	// end of the run when work is still running or waiting).
	Makespan int64 `json:"makespan"`
	// Utilization is held slot-seconds over total slots × makespan.
	Utilization float64 `json:"utilization"`
	// AvgWait averages start − submit over jobs that started.
	AvgWait float64 `json:"avg_wait"`
	// AvgJCT averages end − submit over jobs that ended.
	AvgJCT      float64 `json:"avg_jct"`
	Preemptions int     `json:"preemptions"`
	// Requeues counts tasks stopped by a requeue (allot job requeue, a
	// history's requeue event): not preemptions, as no pass asked, but
	// their checkpoints count in PreemptionLostSlotHours as theirs do;
	// left out of the JSON when zero.
	Requeues int `json:"requeues,omitempty"`
	// Moves counts tasks the core moved between nodes to gather slots for
	// a waiting task (consolidation); left out of the JSON when zero.
	Moves int `json:"moves,omitempty"`
	// Resizes counts elastic tasks resized in place: grown by doubling,
	// or shrunk for another job, which Shrinks counts among them (a
	// fair-share pool giving back, a quota pool's reclaim); each is left
	// out when zero.
	Resizes int `json:"resizes,omitempty"`
	Shrinks int `json:"shrinks,omitempty"`

	// Jobs counts submitted jobs: Completed, Killed and Failed ones ended,
	// Unfinished ones were still running or waiting when the run stopped.
	Jobs       int `json:"jobs"`
	Completed  int `json:"completed"`
	Killed     int `json:"killed"`
	Unfinished int `json:"unfinished"`
	// Failed counts jobs that ended failed: a task's failure of its own
	// (a scripted fail, a failed start; the what-if export's exits with
	// a non-zero code), or a preemption or loss after which its exit
	// actions did not reschedule it. It is left out of the JSON when
	// zero.
	Failed int `json:"failed,omitempty"`
	// TimeLimitKills counts jobs killed because a task reached its time
	// limit.
	TimeLimitKills int `json:"time_limit_kills"`
	// Wait is start − submit over jobs that started; JCT is end − submit
	// over jobs that ended; BoundedSlowdown is over jobs that started and
	// ended.
	Wait            metrics.Dist `json:"wait"`
	JCT             metrics.Dist `json:"jct"`
	BoundedSlowdown metrics.Dist `json:"bounded_slowdown"`
	// AvgQueue is the time-average number of jobs with waiting tasks over
	// the makespan; MaxQueue the most at once.
	AvgQueue float64 `json:"avg_queue"`
	MaxQueue int     `json:"max_queue"`
	// PreemptionLostSlotHours is slot (GPU) time spent checkpointing
	// after preemption requests (moves and resizes included), when the
	// slots did no useful work.
	PreemptionLostSlotHours float64 `json:"preemption_lost_slot_hours"`
	// LostWorkSlotHours is the work preemptions, moves, resizes and lost
	// nodes threw away: the run time since each task's last checkpoint,
	// times its slots, which the task runs again (unless it failed). Left
	// out when zero (without lost nodes it is zero without
	// checkpoint_every, when a task checkpoints when asked).
	LostWorkSlotHours float64 `json:"lost_work_slot_hours,omitempty"`
	// JainFairness is Jain's index of the projects' received ÷ entitled
	// slot-hours; Projects gives each project's numbers.
	JainFairness float64                  `json:"jain_fairness"`
	Projects     []metrics.ProjectSummary `json:"projects"`
	// JainFairnessAccounts is Jain's index of the fair-share accounts'
	// received ÷ entitled slot-hours, over the accounts jobs charged;
	// Accounts gives every account whose jobs or sub-accounts' had
	// demand, its subtree's numbers. Both are absent when the input has
	// no accounts, or no job charged one.
	JainFairnessAccounts float64                  `json:"jain_fairness_accounts,omitempty"`
	Accounts             []metrics.AccountSummary `json:"accounts,omitempty"`
	// Starvation counts the jobs that waited over Options.StarveAfter;
	// absent without it.
	Starvation *Starvation `json:"starvation,omitempty"`
}

// NoProject names the project of jobs that have none.
const NoProject = "(none)"

// recorder accumulates results as the run goes.
type recorder struct {
	s          *sim
	col        *metrics.Collector
	jobs       []JobResult
	timeline   []TimelineEntry
	firstSub   int64
	lastEnd    int64
	dirty      bool
	preempts   int
	requeues   int
	totalSlots int
	submits    int
	completed  int
	killed     int
	failed     int
	moves      int
	resizes    int
	shrinks    int
	lostWork   int64 // slot-seconds of work thrown away
	limitKills int
	usage      usage
	starve     starveCounter
	// acctPools marks the pools jobs charging accounts were submitted
	// to, when the input has accounts (accountSlots).
	acctPools []bool
}

func (r *recorder) init(s *sim) {
	r.s = s
	r.firstSub, r.lastEnd = -1, -1
	for i := range s.c.Snap.Nodes {
		r.totalSlots += s.c.Snap.Nodes[i].Slots
	}
	r.col = metrics.NewCollector(r.totalSlots, s.opt.Series)
	r.starve = newStarveCounter(s.opt.StarveAfter)
	r.usage.init(s.in.Projects, s.opt.Timeline)
	r.accountFairness(s.in.Accounts, len(s.in.Pools))
}

// advance integrates the state up to time t, before the clock moves there.
func (r *recorder) advance(t int64) {
	r.col.Advance(t)
	r.usage.advance(t)
	if r.firstSub < 0 && r.s.hasNext && arrival(&r.s.next) == t {
		r.firstSub = t
	}
}

func (r *recorder) project(name string) int32 {
	if name == "" {
		name = NoProject
	}
	return r.col.Project(name)
}

func (r *recorder) submitted(ji int32) {
	r.submits++
	j := &r.s.jobs[ji]
	r.col.Submitted(j.project)
	if j.acct >= 0 {
		r.chargePool(j.spec.Pool)
	}
}

// demand changes the slots job ji's live tasks would hold if all ran,
// for its project and its account.
func (r *recorder) demand(ji int32, delta int) {
	j := &r.s.jobs[ji]
	r.col.Demand(j.project, delta)
	r.col.AccountDemand(j.acct, delta)
}

func (r *recorder) queue(delta int) { r.col.Queue(delta) }

func (r *recorder) hold(ji int32, slots int) {
	j := &r.s.jobs[ji]
	r.col.Hold(j.project, slots)
	r.col.AccountHold(j.acct, slots)
	r.usage.hold(j.qp, slots, j.spec.Borrow)
	r.dirty = true
}

func (r *recorder) preempted(ji int32) { r.preempts++ }

func (r *recorder) requeued() { r.requeues++ }

func (r *recorder) checkpointed(slotSeconds int64) { r.col.Preempted(slotSeconds) }

func (r *recorder) finished(ji int32) {
	j, lj := &r.s.jobs[ji], &r.s.c.Jobs[ji]
	r.lastEnd = max(r.lastEnd, lj.End)
	switch stateOf(lj.State) {
	case StateCompleted:
		r.completed++
	case StateKilled:
		r.killed++
		if lj.Timeout > 0 {
			r.limitKills++
		}
	case StateFailed:
		r.failed++
	}
	r.col.Job(j.project, sample(j, lj))
	r.starved(j, lj)
	if !r.s.opt.OmitJobs {
		r.jobs = append(r.jobs, r.jobResult(j, lj))
	}
}

// sample is the fixed-size record the metrics keep of job j, whose
// lifecycle record is lj.
func sample(j *job, lj *lifecycle.Job) metrics.Sample {
	x := metrics.Sample{Wait: -1, Response: -1, Run: j.busy}
	if lj.Start >= 0 {
		x.Wait = lj.Start - j.spec.Submit
	}
	if lj.State.Terminal() {
		x.Response = lj.End - j.spec.Submit
	}
	return x
}

// starved counts job j for Metrics.Starvation, when the run counts it.
func (r *recorder) starved(j *job, lj *lifecycle.Job) {
	if r.s.opt.StarveAfter > 0 {
		wait, started := waited(j, lj, r.s.now)
		r.starve.add(j.spec.Name, j.seq, wait, started)
	}
}

// settled records a timeline entry if allocations changed at this time.
func (r *recorder) settled() {
	r.usage.settled(r.s.now)
	if !r.dirty || !r.s.opt.Timeline {
		r.dirty = false
		return
	}
	r.dirty = false
	e := TimelineEntry{Time: r.s.now, Slots: map[string]int{}}
	for _, ji := range r.s.c.Roster.List() {
		if lj := &r.s.c.Jobs[ji]; !lj.State.Terminal() && lj.Held > 0 {
			e.Slots[r.s.jobs[ji].spec.Name] = lj.Held
		}
	}
	// An instant can be settled twice, when handling it queued more events
	// at the same time (a checkpoint that costs nothing); it keeps one
	// entry, the last.
	if n := len(r.timeline); n > 0 && r.timeline[n-1].Time == e.Time {
		r.timeline[n-1] = e
		return
	}
	r.timeline = append(r.timeline, e)
}

func (r *recorder) jobResult(j *job, lj *lifecycle.Job) JobResult {
	jr := JobResult{Name: j.spec.Name, State: stateOf(lj.State), Submit: j.spec.Submit, Preemptions: lj.Preempts,
		Project: j.spec.Project, Account: j.spec.Account, Attempts: j.attempts, seq: j.seq}
	if j.hasPrio {
		prio := roundPriority(j.prio)
		jr.Priority = &prio
	}
	j.attempts = nil // the result owns them now; the record may be reused
	if j.search != nil {
		jr.Search = j.search.result(j.spec.Search)
	}
	if lj.Start >= 0 {
		start, wait := lj.Start, lj.Start-j.spec.Submit
		jr.Start, jr.Wait = &start, &wait
	}
	if lj.End >= 0 && lj.State.Terminal() {
		end := lj.End
		jr.End = &end
	}
	if j.estimate >= 0 {
		est := j.estimate
		jr.Estimate = &est
	}
	return jr
}

// result assembles the final result, explaining jobs still waiting with
// one more scheduling pass whose plan is not applied.
func (s *sim) result() *Result {
	r := &s.rec
	res := &Result{Jobs: r.jobs, End: s.now, TotalSlots: r.totalSlots}
	if res.Jobs == nil {
		res.Jobs = []JobResult{}
	}
	reasons, fallback, prios := s.finalReasons()
	for _, ji := range s.c.Roster.List() {
		j, lj := &s.jobs[ji], &s.c.Jobs[ji]
		if lj.State.Terminal() {
			continue
		}
		if lj.Held > 0 {
			j.busy += s.now - j.busySince // still running: count up to now
			j.busySince = s.now
		}
		r.col.Job(j.project, sample(j, lj))
		r.starved(j, lj)
		if s.opt.OmitJobs {
			continue
		}
		jr := r.jobResult(j, lj)
		jr.Reason = reasons[ji]
		if jr.Reason == "" && jr.State == StatePending {
			jr.Reason = fallback[ji]
		}
		if p, ok := prios[ji]; ok && jr.Priority == nil {
			p = roundPriority(p)
			jr.Priority = &p
		}
		res.Jobs = append(res.Jobs, jr)
	}
	slices.SortFunc(res.Jobs, func(a, b JobResult) int { return cmp.Compare(a.seq, b.seq) })
	if s.opt.Timeline {
		res.Timeline = r.timeline
		if res.Timeline == nil {
			res.Timeline = []TimelineEntry{}
		}
	}
	res.Metrics = r.metrics(res, s)
	res.Projects = r.usage.results(s.in.Projects)
	res.Accounts = accountResults(s.c.Snap.Accounts)
	return res
}

// finalReasons explains the jobs still waiting, with one more pass whose
// plan is not applied, and gives the priority of those of multifactor
// pools.
func (s *sim) finalReasons() (out, fallback map[int32]string, prios map[int32]float64) {
	out, fallback, prios = map[int32]string{}, map[int32]string{}, map[int32]float64{}
	if s.opt.OmitJobs {
		return out, fallback, prios
	}
	plan, err := s.c.Explain(s.now) // the whole queue
	if err != nil {
		return out, fallback, prios
	}
	for i, p := range plan.Pending {
		ji := s.c.Roster.List()[p.Job]
		out[ji] = plan.Message(&s.c.Snap, i)
		if s.c.Snap.Pools[s.c.Snap.Jobs[p.Job].Pool].Policy == sched.PolicyMultifactor {
			prios[ji] = p.Priority
		}
	}
	// Every pending job gets a reason (fallback, which result uses for
	// pending jobs only), also one the last pass would start, the run having
	// stopped before that pass, and one whose tasks are still
	// checkpointing after a preemption.
	for _, st := range plan.Starts {
		if ji := s.c.Roster.List()[st.Job]; out[ji] == "" {
			fallback[ji] = fmt.Sprintf("starts at %s of simulated time: the run stopped before the pass that starts it", sched.HumanDuration(s.now))
		}
	}
	for _, a := range s.c.Snap.Allocs {
		if ji := s.c.Roster.List()[a.Job]; a.Preempting && !a.Moving && out[ji] == "" && fallback[ji] == "" {
			fallback[ji] = "preempted; waiting for its tasks to checkpoint before they queue again"
		}
	}
	return out, fallback, prios
}

func (r *recorder) metrics(res *Result, s *sim) Metrics {
	m := Metrics{Preemptions: r.preempts, Requeues: r.requeues, Jobs: r.submits, Completed: r.completed, Killed: r.killed,
		Failed: r.failed, Moves: r.moves, Resizes: r.resizes, Shrinks: r.shrinks, TimeLimitKills: r.limitKills,
		LostWorkSlotHours: round(float64(r.lostWork)/3600, 6)}
	m.Unfinished = m.Jobs - m.Completed - m.Killed - m.Failed
	end := r.lastEnd
	if m.Unfinished > 0 {
		end = s.now // unfinished work: the window runs to the end of the run
	}
	if r.firstSub >= 0 && end > r.firstSub {
		m.Makespan = end - r.firstSub
	}
	if m.Makespan > 0 && r.totalSlots > 0 {
		m.Utilization = round(r.col.BusySlotSeconds()/(float64(r.totalSlots)*float64(m.Makespan)), 6)
	}
	sum := r.col.Summarize(m.Makespan)
	m.Wait, m.JCT, m.BoundedSlowdown = sum.Wait, sum.Response, sum.Slowdown
	m.AvgWait, m.AvgJCT = sum.Wait.Mean, sum.Response.Mean
	m.AvgQueue, m.MaxQueue = sum.AvgQueue, sum.MaxQueue
	m.PreemptionLostSlotHours = sum.PreemptionLostSlotHours
	m.JainFairness, m.Projects = sum.Jain, sum.Projects
	m.JainFairnessAccounts, m.Accounts = sum.JainAccounts, sum.Accounts
	if s.opt.StarveAfter > 0 {
		st := r.starve.st
		m.Starvation = &st
	}
	res.Series = sum.Series
	return m
}

// roundPriority keeps nine decimals of a multifactor priority, so that
// results show 0.225 rather than the float sum's 0.2250000000000001.
func roundPriority(x float64) float64 {
	if math.Abs(x) >= 1e9 {
		return x
	}
	return math.Round(x*1e9) / 1e9
}

func round(x float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	v := x * p
	if v < 0 {
		return -float64(int64(-v+0.5)) / p
	}
	return float64(int64(v+0.5)) / p
}

// MarshalJSON writes the metrics, with avg_jct, jct and bounded_slowdown
// null when no job ended: they are defined over ended jobs only, and a
// 0 would read as instant completion to a script (docs/simulator.md).
func (m Metrics) MarshalJSON() ([]byte, error) {
	type plain Metrics // without this method
	if m.AnyEnded() {
		return json.Marshal(plain(m))
	}
	// The outer fields, being shallower, hide the embedded ones of the
	// same JSON names.
	return json.Marshal(struct {
		plain
		AvgJCT          *float64      `json:"avg_jct"`
		JCT             *metrics.Dist `json:"jct"`
		BoundedSlowdown *metrics.Dist `json:"bounded_slowdown"`
	}{plain: plain(m)})
}
