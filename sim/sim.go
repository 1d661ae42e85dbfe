package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// Unbounded marks a task that runs until it is killed.
const Unbounded int64 = -1

// Input is a workload ready to replay.
type Input struct {
	Pools  []Pool
	Jobs   Source
	Events []Event
	// Projects are the quota entities of quota pools, in a tree. A job
	// names its project in JobSpec.Project; a job in a quota pool must
	// name one of these.
	Projects []Project
	// Licenses are cluster-wide consumables (JobSpec.Licenses), and QOS
	// the qualities of service jobs may name (JobSpec.QOS); the core
	// honours both.
	Licenses []sched.License
	QOS      []sched.QOS
	// Accounts are the fair-share entities of multifactor pools, in a
	// tree (Parent indexes Accounts, -1 at the top); Usage is what each
	// starts with. A job names the account it charges in
	// JobSpec.Account. The simulator keeps each account's decayed usage
	// from then on (see Decay), as the core keeps nothing between passes.
	Accounts []sched.Account
	// Decay says how fast usage stops counting; it must be valid when
	// there are accounts. Usage is accounted per Decay.Period, periods
	// aligned to time −Epoch: what jobs hold during a period counts in
	// full, and at the end of each period all usage so far decays once.
	Decay sched.Decay
	// Epoch is the Unix time of time 0 (a scenario's epoch), so that
	// periods end where the live master's do, aligned to the Unix epoch;
	// 0 aligns them to time 0.
	Epoch int64
	// LostNodeGrace is how long a lost node's tasks that are not
	// preemptible keep their attempt (lifecycle's HoldsThroughLoss), in
	// whole seconds: a scenario's lost_node_grace. 0 ends them at the
	// loss.
	LostNodeGrace time.Duration
}

// Project is a quota entity. Parent indexes Input.Projects (-1 at the
// top).
type Project struct {
	sched.Project
	// Pool marks a pool's own quota: pools that share nodes (OSMO pools)
	// are one scheduling pool in which each of them is a project named
	// after it.
	Pool bool
}

// OnPreempt is what happens to a task once a preemption has stopped it.
type OnPreempt uint8

// Exit actions after a preemption. The zero value reschedules.
const (
	// PreemptReschedule puts the task back in its job's queue, which keeps
	// the job's original submit time, so it goes ahead of later work of
	// the same priority.
	PreemptReschedule OnPreempt = iota
	// PreemptFail ends the task as failed; its job ends failed.
	PreemptFail
)

// Pool is a pool with its nodes and simulator-only settings.
type Pool struct {
	sched.Pool
	// CheckpointCost is how long a preempted task keeps its slots while it
	// checkpoints.
	CheckpointCost int64
	Nodes          []sched.Node
	// ZeroSlotLimit caps the zero-slot tasks on each node the pool gets
	// by a node_reshape into it, as its own nodes' ZeroSlotLimit does;
	// 0 for none.
	ZeroSlotLimit int
}

// JobSpec is one submitted job.
type JobSpec struct {
	Name          string
	Kind          sched.Kind
	Submit        int64
	Pool          int
	Tasks         int
	MaxConcurrent int
	Slots         int
	// Duration is each task's run time, or Unbounded.
	Duration    int64
	TimeLimit   int64
	Priority    int
	Weight      float64
	Preemptible bool
	GPU         string
	// Project and User say whose job it is; metrics report fairness per
	// project. Both may be empty.
	Project string
	User    string
	// Interactive work runs only within its project's quota and is never
	// preempted (quota pools).
	Interactive bool
	// Borrow marks LOW-class work in a quota pool: it counts toward no
	// quota, uses idle slots only, and is reclaimed first.
	Borrow bool
	// CheckpointEvery, when positive, is how often (in run time) a task
	// saves its progress; a preempted task then loses the run time since
	// its last checkpoint. At 0 a preempted task keeps all its progress.
	CheckpointEvery int64
	// OnPreempt and MaxRetries are the job's exit actions: after a
	// preemption a task is rescheduled unless OnPreempt is PreemptFail or
	// it was already rescheduled MaxRetries times (0: no cap).
	OnPreempt  OnPreempt
	MaxRetries int
	// Licenses are what each task holds while it runs (indices into
	// Input.Licenses); QOS indexes Input.QOS (0 when it lists none).
	Licenses []sched.LicenseUse
	QOS      int
	// Account names the account in Input.Accounts the job's usage is
	// charged to; "" for none. Nice adjusts its multifactor priority.
	Account string
	Nice    int
	// Topology says whether a task spanning nodes must (or only should)
	// stay under one switch.
	Topology sched.Topology
	// MinSlots makes the job elastic when it is not 0: a task asks for
	// Slots and may run on fewer, down to MinSlots (see elastic.go).
	// Duration is then the run time at Slots: a task's work is Duration ×
	// Slots slot-seconds, and it progresses by the slots it holds.
	MinSlots int
	// Class, when set, ties preemptibility and borrowing to the OSMO
	// priority class when an event changes the priority, as the master
	// does on a PATCH: LOW-class work (priority 60-99) is always
	// preemptible and, in a quota pool, borrows; leaving LOW restores
	// what the job file said. Scenario jobs have it; trace jobs do not.
	Class *ClassRule
	// Search, when set, makes the job an experiment driven by an adaptive
	// searcher: its Tasks are the trials, which report metrics that may
	// stop them early (search.go).
	Search *SearchSpec
	// AfterPass settles the instant (passes until settled, and the ends
	// and checkpoints those promise for the same instant) before the job
	// is submitted, where a live master ran a pass between it and the
	// jobs or ends before it in the same second (scenario.Job.AfterPass).
	AfterPass bool
	// FirstPass, when later than Submit, is when the job is submitted to
	// the Cluster, after the ends due then and before the instant's other
	// submissions; Submit still orders it in the queue and counts its
	// age (scenario.Job.FirstPass). Jobs come in the order of arrival.
	FirstPass int64
	// Held submits the job held, until an EventRelease
	// (scenario.Job.Held).
	Held bool
	// Fails maps the number of a task (in the order the job's tasks
	// first start) that fails to the work, in seconds at full size, after
	// which it exits with an error (scenario.Job.Fails); nil for none. The
	// job needs a Duration: a task without one counts no progress.
	Fails map[int]int64
	// StartFails maps the number of a task whose start fails to the
	// attempt that cannot start, from 1 (a resume after a preemption or a
	// lost node is a new attempt; a move or resize is not); nil for none
	// (scenario.Job.StartFails). The task fails at that start's instant.
	StartFails map[int]int
	// StartLost maps a task's number and attempt (numbered as in
	// StartFails) to the seconds after that start at which the driver
	// gives it up, no agent having answered it (scenario.Job.StartLost):
	// the task never runs and waits again then (lifecycle.EventStartLost).
	StartLost map[[2]int]int64
	// Lost maps a task's number and attempt (numbered as in StartFails)
	// to the seconds after that start at which the attempt is lost, its
	// node up (scenario.Job.Lost): it ends as on a lost node
	// (lifecycle.EventAttemptLost), unless it was preempted or ended by
	// then (a move or resize continues the attempt, and its landing
	// promises the loss again). At 0 seconds the loss comes once the
	// start's instant has settled, as a live master hears of it after
	// the pass that started the attempt.
	Lost map[[2]int]int64
	// Runs maps the number of a task whose run time is its own to it, in
	// seconds at full size, instead of Duration (scenario.Job.Runs); nil
	// for none. An experiment (Search) has none.
	Runs map[int]int64
	// Stops maps the number of a task stopped from outside, as a live
	// searcher stops a trial, to the work, in seconds at full size, after
	// which it is stopped (scenario.Job.Stops): its attempt ends killed,
	// the task completed (lifecycle.EventStopped). The job needs a
	// Duration, as for Fails; a task is in Fails or Stops, not both.
	Stops map[int]int64
	// AgentPreempted maps a task's number and attempt (numbered as in
	// StartFails) to the seconds after that start at which its agent
	// preempts it, as it shuts down or as its fence does in a master
	// outage (scenario.Job.AgentPreempted): it
	// ends preempted, its checkpoint landing at once
	// (lifecycle.EventAgentPreempted), unless it was preempted or ended
	// by then (a move or resize continues the attempt, as for Lost).
	AgentPreempted map[[2]int]int64
	// Checkpoints maps a task's number and attempt (numbered as in
	// StartFails) to how long its checkpoint takes to land once a pass
	// asks for it (a preemption, a move or a resize), for the attempts
	// that do not take their pool's CheckpointCost
	// (scenario.Job.Checkpoints).
	Checkpoints map[[2]int]int64
	// NthCheckpoints maps a task's number, attempt and the number of a
	// checkpoint of that attempt (from 1, in the order passes asked for
	// them: a move or resize continues the attempt) to how long that
	// checkpoint takes, over Checkpoints (scenario.Checkpoint's Nth).
	NthCheckpoints map[[3]int]int64
	// LateExits maps a task's number and attempt (numbered as in
	// StartFails) to how long before that attempt ended its processes
	// exited, for an exit the live master heard of late
	// (scenario.Job.LateExits): its slots stay held until it ends, but
	// its account is charged for them until the exit only
	// (lifecycle.Task.ExitBefore), as the master's usage ends at the
	// exit its agent reported.
	LateExits map[[2]int]int64
	// SlowKills maps a task's number and attempt (numbered as in
	// StartFails) to how long a kill of that attempt (its job's kill
	// event, or its time limit) takes to end it, for a kill the live
	// master waited for (scenario.Job.SlowKills): it holds its slots,
	// killing, until then (lifecycle.Task.KillAfter).
	SlowKills map[[2]int]int64
	// EndsAfterPass are the attempts, by task number and attempt
	// (numbered as in StartFails), whose end comes after the settling of
	// its instant (scenario.Job.EndsAfterPass, endafterpass.go).
	EndsAfterPass map[[2]int]bool
}

// ClassRule is what a job is outside the LOW class.
type ClassRule struct {
	// Preemptible is the job's preemptibility outside LOW.
	Preemptible bool
	// QuotaPool: the job's pool divides slots by quota, so LOW work
	// borrows there.
	QuotaPool bool
	// Interactive is the job's interactivity outside LOW; in LOW, where
	// it is preemptible, it is not interactive (lifecycle.InteractiveIn).
	Interactive bool
}

// lowClass is the first priority of OSMO's LOW class.
const lowClass = 60

// applyClass sets the fields that follow the priority's class, by the
// rules the master's snapshot entries follow (lifecycle.Class.In).
func (c *ClassRule) applyClass(priority int, preemptible, borrow, interactive *bool) {
	*preemptible, *borrow, *interactive = lifecycle.Class(*c).In(priority >= lowClass)
}

// Source yields jobs in non-decreasing submit order; Next returns io.EOF
// after the last one.
type Source interface {
	Next() (JobSpec, error)
}

// EventKind names a scripted event.
type EventKind uint8

// The scripted events.
const (
	EventKill EventKind = iota + 1
	EventSetPriority
	EventSetWeight
	// EventNodeDown loses a node: the attempts on it end as lost
	// (lifecycle's EventNodeDown) and it offers no slots until
	// EventNodeUp.
	EventNodeDown
	EventNodeUp
	// EventNodeDrain drains a node: the tasks on it run on, and none
	// starts there until EventNodeResume (lifecycle's EventNodeDrain).
	EventNodeDrain
	EventNodeResume
	// EventNodeDelete deletes a node, as an admin's allot node delete:
	// it goes down as at EventNodeDown, no longer drained, and leaves
	// the fair-share capacity (lifecycle.InFairShareCapacity) until
	// EventNodeUp, a node of its name registering again.
	EventNodeDelete
	// EventNodeReshape gives a node another inventory (Event.Shape), as
	// its agent registering again with other GPUs, labels or pool
	// (Event.Pool): its tasks run on, every slot they hold counting
	// against the new ones until they end (lifecycle's
	// EventNodeReshape), and fair-share usage is a share of the new
	// slots, in the new pool, from then on.
	EventNodeReshape
	// EventSetTimeLimit, EventSetQOS and EventSetNice change a job's
	// time limit (Event.TimeLimit), QOS (Event.QOS, an index into
	// Input.QOS) and nice (Event.Nice), through the lifecycle
	// (lifecycle's EventTimeLimit, EventQOS, EventNice).
	EventSetTimeLimit
	EventSetQOS
	EventSetNice
	// EventHold holds a job (allot job hold) until EventRelease: no pass
	// starts it meanwhile; a job with a task holding slots is not held
	// (lifecycle's EventHold and EventRelease).
	EventHold
	EventRelease
	// EventRequeue requeues a job (allot job requeue): its running
	// tasks checkpoint and wait again; Event.Hold holds it too
	// (lifecycle's EventRequeue).
	EventRequeue
)

// Event is a scripted change at a given time: to Job, or for a node
// event to Node (a node's name).
type Event struct {
	At       int64
	Kind     EventKind
	Job      string
	Priority int
	Weight   float64
	// TimeLimit (seconds, 0 for none), QOS and Nice are an
	// EventSetTimeLimit's, EventSetQOS's and EventSetNice's.
	TimeLimit int64
	QOS       int
	Nice      int
	// Hold is an EventRequeue's: the job is held too.
	Hold bool
	Node string
	// Shape is an EventNodeReshape's new shape of Node: its Slots, GPU,
	// Labels and Switch.
	Shape *sched.Node
	// Pool is, for an EventNodeReshape, the name of the pool of the
	// input that Node moves to; "" keeps it in its pool.
	Pool string
	// AfterPass settles the instant before the event, as a live master
	// that ran a pass between it and what came before it in its second
	// (scenario.Event.AfterPass).
	AfterPass bool
	// Before, when set, names a job submitted at At: the event comes
	// just before its submission rather than after the instant's
	// submissions (scenario.Event.Before).
	Before string
	// Where names the event's place in its file ("FILE:LINE") for
	// errors found only while running, such as a job the workload never
	// submits; empty for events made in code.
	Where string
}

// Options tune a run.
type Options struct {
	// Until stops the run after the events at this time; negative means
	// run until the event queue is empty.
	Until int64
	// Timeline records the slots each job holds after every change.
	Timeline bool
	// Progress, when set, is called now and then with the clock and the
	// number of jobs submitted so far.
	Progress func(now int64, submitted int)
	// MaxPasses bounds the scheduling passes at one instant; a workload
	// that needs more is reported as an error rather than looping.
	MaxPasses int
	// OmitJobs leaves per-job results out of the Result: memory then stays
	// proportional to the live state plus one fixed-size metrics sample
	// per job, however long the trace.
	OmitJobs bool
	// Series records the run's state over time (utilisation, queue, each
	// project's share) in at most metrics.MaxBuckets steps.
	Series bool
	// Attempts records every attempt of every task in the per-job
	// results: start, end and how it ended.
	Attempts bool
	// Estimates records, for each job, the start the live master would
	// have shown at its submission (sched.Forecast after the passes of
	// that instant), so that the estimates' accuracy can be measured. It
	// costs a forecast per instant with submissions.
	Estimates bool
	// Inspect, when set, sees every scheduling pass: the snapshot and the
	// plan, before the plan is applied. Both are only valid during the
	// call. Tests use it to check properties of the schedule.
	Inspect func(now int64, snap *sched.Snapshot, plan *sched.Plan)
	// StarveAfter, when positive, counts the jobs that waited longer than
	// this many seconds to start, as Metrics.Starvation; 0 leaves it out.
	StarveAfter int64

	// confirm forces a confirming pass after every plan, even where the
	// policies make it redundant; tests compare results with and without.
	confirm bool
	// noPrefix hands the core the whole queue on every pass, even where a
	// FIFO window would do (lifecycle/shortcuts.go); tests compare results.
	noPrefix bool
	// noRevs gives the core's job entries no Rev, so that every pass
	// works everything out again; tests compare results.
	noRevs bool
}

// Skip counts the jobs of one kind that a source could not replay, so that
// dropping them is never silent.
type Skip struct {
	Reason    string `json:"reason"`
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line,omitempty"`
}

// Summarizer is implemented by sources that skip records or make
// choices worth telling the user about; Run copies both into the Result
// once the source is drained.
type Summarizer interface {
	Skipped() []Skip
	Notes() []string
}

// SliceSource serves jobs from a slice, sorting them stably by submit time.
type SliceSource struct {
	jobs []JobSpec
	next int
}

// NewSliceSource returns a Source over jobs, keeping file order among jobs
// submitted at the same time.
func NewSliceSource(jobs []JobSpec) *SliceSource {
	s := &SliceSource{jobs: append([]JobSpec(nil), jobs...)}
	sortStable(s.jobs)
	return s
}

// Next implements Source.
func (s *SliceSource) Next() (JobSpec, error) {
	if s.next >= len(s.jobs) {
		return JobSpec{}, io.EOF
	}
	s.next++
	return s.jobs[s.next-1], nil
}

// Len is the number of jobs in the source.
func (s *SliceSource) Len() int { return len(s.jobs) }

// Fraction is the share of the jobs served so far, for progress bars.
func (s *SliceSource) Fraction() float64 {
	if len(s.jobs) == 0 {
		return 1
	}
	return float64(s.next) / float64(len(s.jobs))
}

func sortStable(jobs []JobSpec) {
	slices.SortStableFunc(jobs, func(a, b JobSpec) int { return cmp.Compare(arrival(&a), arrival(&b)) })
}

// arrival is when job j is submitted to the Cluster: its FirstPass,
// when later than its Submit.
func arrival(j *JobSpec) int64 { return max(j.Submit, j.FirstPass) }

// Run replays the input and returns the result.
func Run(in *Input, opt Options) (*Result, error) {
	s, err := newSim(in, opt)
	if err != nil {
		return nil, err
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	res := s.result()
	if sum, ok := in.Jobs.(Summarizer); ok {
		res.Skipped, res.Notes = sum.Skipped(), sum.Notes()
	}
	return res, nil
}

func checkInput(in *Input) error {
	if len(in.Pools) == 0 {
		return errors.New("no pools")
	}
	if in.Jobs == nil {
		return errors.New("no job source")
	}
	if err := checkProjects(in.Projects); err != nil {
		return err
	}
	if err := checkAccounts(in.Accounts, in.Decay); err != nil {
		return err
	}
	for i, p := range in.Pools {
		if len(p.Nodes) == 0 {
			return fmt.Errorf("pool %q: no nodes", p.Name)
		}
		if p.CheckpointCost < 0 {
			return fmt.Errorf("pool %q: negative checkpoint cost", p.Name)
		}
		for _, n := range p.Nodes {
			if n.Pool != i {
				return fmt.Errorf("pool %q: node %q names pool index %d", p.Name, n.Name, n.Pool)
			}
		}
	}
	return nil
}

// checkAccounts checks the account tree (unique names, parents that exist
// and no cycle, shares and usage finite and >= 0) and, when there are
// accounts, the decay.
func checkAccounts(as []sched.Account, d sched.Decay) error {
	if len(as) == 0 {
		return nil
	}
	if err := d.Validate(); err != nil {
		return err
	}
	seen := make(map[string]bool, len(as))
	for i := range as {
		a := &as[i]
		switch {
		case a.Name == "" || seen[a.Name]:
			return fmt.Errorf("account %d: empty or duplicate name %q", i, a.Name)
		case !(a.Shares >= 0) || !(a.Usage >= 0) || math.IsInf(a.Shares, 1) || math.IsInf(a.Usage, 1):
			return fmt.Errorf("account %q: shares and usage must be finite numbers >= 0", a.Name)
		}
		seen[a.Name] = true
		at := a.Parent
		for steps := 0; at >= 0; steps++ {
			if at >= len(as) || steps > len(as) {
				return fmt.Errorf("account %q: parent index %d is out of range or its parents form a cycle", a.Name, a.Parent)
			}
			at = as[at].Parent
		}
	}
	return nil
}

// checkProjects checks the project tree: unique names, parents that exist
// and no cycle, no negative numbers.
func checkProjects(ps []Project) error {
	seen := make(map[string]bool, len(ps))
	for i := range ps {
		p := &ps[i]
		switch {
		case p.Name == "" || seen[p.Name]:
			return fmt.Errorf("project %d: empty or duplicate name %q", i, p.Name)
		case p.Quota < 0 || p.Limit < 0 || !(p.OverQuotaWeight >= 0):
			return fmt.Errorf("project %q: negative quota, limit or over-quota weight", p.Name)
		}
		seen[p.Name] = true
		at := p.Parent
		for steps := 0; at >= 0; steps++ {
			if at >= len(ps) || steps > len(ps) {
				return fmt.Errorf("project %q: parent index %d is out of range or its parents form a cycle", p.Name, p.Parent)
			}
			at = ps[at].Parent
		}
	}
	return nil
}
