package lifecycle

import (
	"fmt"
	"math"

	"github.com/allot-sched/allot/sched"
)

// StepOptions configure a Cluster's Step (Configure).
type StepOptions struct {
	// MaxPasses bounds the passes at one instant; a Step that has not
	// settled by then fails. 0 means 1000.
	MaxPasses int
	// Confirm forces a confirming pass after every plan, even where the
	// policies make it redundant; tests compare results with and without.
	Confirm bool
	// NoShortcuts hands the core the whole queue on every pass and never
	// skips a pass on a full cluster (shortcuts.go); tests compare.
	NoShortcuts bool
	// Inspect, when set, sees every pass's snapshot and plan before the
	// plan is applied; both are only valid during the call. It turns the
	// shortcuts off, since it must see every pass whole.
	Inspect func(now int64, snap *sched.Snapshot, plan *sched.Plan)
}

// Applier is told of each effect right after Step applied it to the
// Cluster, in order (a Persister is asked before, once a pass). The
// reactions of a driver (the simulator's metrics and timers, a master's
// agent commands) go here rather than after Step returns, because an
// instant may take several passes and a later one may change the same
// task again (start it, then preempt it): the task record shows the
// state the effect left only until the next effect.
type Applier interface {
	Applied(now int64, e *Effect)
}

// Ready is what a Step leaves: how many passes it ran (0 when it skipped
// the instant) and the snapshot the last pass saw, valid until the next
// call that builds one (Step, Forecast, Explain).
type Ready struct {
	Passes   int
	Snapshot *sched.Snapshot
}

// stepper is the Cluster's state for Step: what the options and the
// pools allow, and the shortcuts' memory between instants.
type stepper struct {
	opt StepOptions
	// oneShot: every pool's policy gives a maximal plan, so applying a
	// plan without preemptions and planning again would start nothing.
	oneShot bool
	// reserves: some pool backfills conservatively and reads the
	// reservations carried from pass to pass (KeepReservations).
	reserves bool
	// multifactor: some pool runs the multifactor policy, whose jobs'
	// effects carry their first priority.
	multifactor bool
	// full: a pass may be skipped while every slot is held (fullSkips).
	full       bool
	totalSlots int
	lastInUse  int // InUse after the last instant's passes (quiet)
	// prefix is the FIFO window (shortcuts.go), 0 when off; cut says the
	// last snapshot left jobs out, lastBlocked that its plan stopped at a
	// job inside the window.
	prefix      int
	cut         bool
	lastBlocked bool
	// zeroSlot counts live zero-slot jobs, which turn the window and the
	// full-cluster skips off.
	zeroSlot int
	// smallest is the fewest slots a job submitted since the last Step
	// asks; woken says an event since then asked for a pass (wake).
	smallest int
	woken    bool
	// During a Step, the Cluster it drives Settle for, the driver's
	// Applier (and Persister, if it is one) and the instant.
	c       *Cluster
	ap      Applier
	persist Persister
	now     int64
	settler Settler
	// carry: Settle asked to carry the pass's reservations, which Apply
	// does once the driver has stored the pass (Persister). applied
	// counts the passes the Step applied.
	carry   bool
	applied int
	// launching counts, by snapshot job, the starts resolve has resolved
	// so far in a pass; all zero between passes.
	launching []int32
}

// Configure readies Step once the driver has filled Snap's pools, nodes
// and licenses, which stay as they are from then on.
func (c *Cluster) Configure(opt StepOptions) {
	if opt.MaxPasses <= 0 {
		opt.MaxPasses = 1000
	}
	st := &c.step
	*st = stepper{opt: opt, oneShot: !opt.Confirm && OneShot(c.Snap.Pools, false), smallest: math.MaxInt, zeroSlot: st.zeroSlot,
		settler: Settler{MaxPasses: opt.MaxPasses}}
	for i := range c.Snap.Pools {
		p := &c.Snap.Pools[i]
		st.multifactor = st.multifactor || p.Policy == sched.PolicyMultifactor
		st.reserves = st.reserves || (p.Backfill || p.Policy == sched.PolicyBackfill) && p.Reservations == sched.ReserveConservative
	}
	for i := range c.Snap.Nodes {
		st.totalSlots += c.Snap.Nodes[i].Slots
	}
	if prefixEligible(&c.Snap, &opt) {
		st.prefix = initialWindow
	}
	st.full = fullSkips(&c.Snap, &opt)
}

// submitted notes a job's entry for the shortcuts: an elastic task may
// grow in a pass after the one that started it, even under FIFO, so every
// pass must then be confirmed; zero-slot jobs turn the shortcuts off.
func (st *stepper) submitted(en *sched.Job) {
	if Grows(en) {
		st.oneShot = false
	}
	if en.Slots == 0 {
		st.zeroSlot++
	}
	st.smallest = min(st.smallest, en.Slots)
}

// wake tells the next Step that an event other than a submission or a
// task's end came (a change to a job, a tick), so it may not skip the
// instant as quiet.
func (st *stepper) wake() { st.woken = true }

// Step settles the cluster at now: it runs passes (Settle, with the
// Cluster's stepper as the Driver), applying each plan's effects (Decide's
// order) through the Cluster's transitions and telling ap of each, until
// the passes settle (Settled), and carries reservations from pass to pass
// (KeepReservations). Pure shortcuts skip passes that could start nothing
// (shortcuts.go); they change no result.
//
// When ap is a Persister, each pass's effects are resolved and stored by
// it before any is applied; a pass it refuses ends Step with its error,
// the pass unapplied (persist.go). A Step that fails leaves the
// shortcuts' memory as it found it, so that the next Step sees all that
// came since the last one that settled, and asks for a pass where it
// applied some, its instant not settled.
func (c *Cluster) Step(now int64, ap Applier) (Ready, error) {
	st := &c.step
	quiet := st.quiet(c.inUse, c.nodes.offTotal(c.LostNodeGrace))
	smallest, woken, prefix := st.smallest, st.woken, st.prefix
	// What came since the last Step is spent now.
	st.smallest, st.woken = math.MaxInt, false
	if quiet {
		st.lastInUse = c.inUse
		return Ready{Snapshot: &c.Snap}, nil
	}
	st.c, st.ap, st.now, st.applied = c, ap, now, 0
	st.persist, _ = ap.(Persister)
	passes, err := st.settler.Settle(st, &c.scheduler, true)
	st.ap, st.persist = nil, nil // the driver's, not to be kept
	if err != nil {
		st.smallest, st.woken, st.prefix = smallest, woken || st.applied > 0, prefix
		return Ready{}, err
	}
	if st.prefix > 0 {
		st.prefix = initialWindow
	}
	st.lastInUse = c.inUse
	return Ready{Passes: passes, Snapshot: &c.Snap}, nil
}

// The stepper is the Cluster's Driver of Settle during a Step: its
// snapshot is the Cluster's Snap, its effects the Cluster's transitions.

// Idle is the full-cluster skip (fullSkips): nothing can start.
func (st *stepper) Idle() bool {
	c := st.c
	return st.full && st.oneShot && st.zeroSlot == 0 && c.inUse >= st.totalSlots && !c.nodes.offTotal(c.LostNodeGrace)
}

// Build refreshes Snap for a pass, cut to the FIFO window.
func (st *stepper) Build() (*sched.Snapshot, []int32) {
	c := st.c
	c.build(st.now, st.prefix)
	// An inspector sees every plan whole; else the reasons of jobs behind
	// a blocked one are left out (a driver asks Explain at the end).
	c.scheduler.OmitBehind = st.opt.Inspect == nil
	return &c.Snap, c.allocTask
}

// Scheduled notes whether the plan stopped at a job inside the window,
// and shows the inspector the pass.
func (st *stepper) Scheduled(plan *sched.Plan, err error) error {
	if err != nil {
		return err
	}
	if st.cut {
		st.lastBlocked = blocked(plan)
	}
	if st.opt.Inspect != nil {
		st.opt.Inspect(st.now, &st.c.Snap, plan)
	}
	return nil
}

// Carry carries the reservations where some pool reads them: the
// snapshot's jobs are the roster's entries, which keep them. Apply
// carries them, once the pass may be applied (Persister), before its
// effects, as Settle would.
func (st *stepper) Carry(*sched.Plan) { st.carry = st.reserves }

// Replacing is the task record's (Task.Replacing).
func (st *stepper) Replacing(ti int32) bool { return st.c.Tasks.At(ti).Replacing() }

// OnDrained asks the nodes (nodes.go).
func (st *stepper) OnDrained(ti int32) bool { return st.c.nodes.onDrained(st.c.Tasks.At(ti).Nodes) }

// Apply resolves the effects (resolve) and has the Persister, if the
// driver is one, store them; unless it refuses, it carries the pass's
// reservations (Carry), makes each effect's transition and tells the
// Applier of it right after. It counts every start of the plan, since
// none is skipped.
func (st *stepper) Apply(plan *sched.Plan, effects []Effect) (starts, changes int, err error) {
	st.resolve(effects)
	carry := st.carry
	st.carry = false
	if st.persist != nil {
		if err := st.persist.Persist(st.now, effects); err != nil {
			return 0, 0, fmt.Errorf("lifecycle: a pass's %d effects at %d were not stored, nor applied: %w", len(effects), st.now, err)
		}
	}
	if carry {
		st.c.KeepReservations(plan)
	}
	st.applied++
	for i := range effects {
		e := &effects[i]
		if err := st.apply(e); err != nil {
			return 0, 0, err
		}
		st.ap.Applied(st.now, e)
		if e.Op != OpStart {
			changes++
		}
	}
	return len(plan.Starts), changes, nil
}

// Again widens the FIFO window when it held no blocked job: the next pass
// looks further at the same instant.
func (st *stepper) Again() bool {
	if st.cut && !st.lastBlocked {
		st.prefix *= 2
		return true
	}
	return false
}

// OneShot is the stepper's, which only Observe changes.
func (st *stepper) OneShot() bool { return st.oneShot }

// apply makes effect e's transition at the Step's instant and fills in
// what it did, beyond what resolve did.
func (st *stepper) apply(e *Effect) error {
	c, now := st.c, st.now
	switch e.Op {
	case OpPreempt:
		e.LostWork = c.Preempt(e.Task, now) * int64(e.Slots)
	case OpMove, OpResize:
		e.Replaced = c.Replace(e.Task, e.Nodes, e.Op.Replace(), e.ChargesBudget(), now)
		e.LostWork = e.Replaced.LostWork
		e.Slots = e.Replaced.Delta
	case OpStart:
		ji := c.Roster.List()[e.Job]
		e.HeldBefore = c.Jobs[ji].Held
		e.Task = c.Launch(ji, e.Nodes, e.Backfill, now)
		return launched(&c.Tasks, e)
	}
	return nil
}

// firstPriorities marks each start of a job of a multifactor pool that
// never ran (First): it starts with the priority the pass ordered it by,
// which Decide copied from the plan's start (sched.Start.Priority).
func (st *stepper) firstPriorities(effects []Effect) {
	if !st.multifactor {
		return
	}
	c := st.c
	for i := range effects {
		e := &effects[i]
		if e.Op != OpStart {
			continue
		}
		ji := c.Roster.List()[e.Job]
		if c.Jobs[ji].Start < 0 && c.Snap.Pools[c.Snap.Jobs[e.Job].Pool].Policy == sched.PolicyMultifactor {
			e.First = true
		}
	}
}

// build refreshes Snap from the live state for a pass at now, its jobs
// cut to a FIFO window of prefix waiting jobs (0: none).
func (c *Cluster) build(now int64, prefix int) {
	c.Snap.Now = now
	lastRunning := c.Snapshot(&c.Snap, now)
	c.nodes.floorHeld(&c.Snap)
	c.nodes.capDrained(&c.Snap)
	c.Snap.Jobs = c.step.window(c.Snap.Jobs, lastRunning, prefix)
}

// Forecast is sched.Forecast over the whole queue at now (no FIFO
// window), by roster index: the start the master shows a waiting job.
func (c *Cluster) Forecast(now int64) map[int]int64 {
	c.build(now, 0)
	return sched.Forecast(&c.Snap)
}

// Explain runs a pass over the whole queue at now without applying it,
// with every waiting job's reason, for a driver's final report; the plan
// refers to Snap until the next call that builds a snapshot.
func (c *Cluster) Explain(now int64) (*sched.Plan, error) {
	c.step.prefix = 0
	c.build(now, 0)
	c.scheduler.OmitBehind = false
	return c.scheduler.Schedule(&c.Snap)
}
