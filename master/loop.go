package master

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// planner runs the scheduling passes by lifecycle's settle loop
// (schedule): it builds the core's snapshot from the mirror (snapshot.go),
// applies the plans' effects (starts, preemptions, moves, resizes:
// apply.go, moves.go), carries reservations between passes (roster.go,
// stored by reservations.go), and keeps what the passes leave for readers: the
// jobs' pending reasons, the forecasts of their starts (eta.go) and the
// projects' preemption budgets (budget.go). Its limits end the tasks
// past their time limits (timelimits.go). It runs with Master.mu held but for the
// core's Schedule, during which it reads only its snapshot (stale.go),
// and mu guards its fields; passMu keeps its passes one at a time. The
// mirror it reads and changes is the Master's, under the same lock, and
// its store writes go through the Master's batches (batch.go).
type planner struct {
	m    *Master
	sc   sched.Scheduler
	snap sched.Snapshot
	view snapView
	// preempted counts, per project, its tasks preempted or moved in
	// the last hour (budget.go).
	preempted preemptBudget
	// eta holds the forecast start of waiting jobs by id (eta.go), made
	// at etaRun.at (wall clock).
	eta    map[int64]time.Time
	etaRun etaRun
	// etaEarly is the forecast with jobs running their typical share of
	// their time limits: the early end of each estimate's range.
	etaEarly map[int64]time.Time
	// runs are the shares of their time limits that recent completed
	// attempts used (eta.go).
	runs runShares
	// grew says a job whose tasks grow after they start (an elastic job,
	// lifecycle.Grows) was in a snapshot: from then on every pass is
	// confirmed by another, as the simulator confirms them once one was
	// submitted (lifecycle.OneShot). It is stored as store.MarkGrows
	// (grewSaved once it is), so that a restart keeps it although the job
	// has ended or been pruned since (restore.go).
	grew, grewSaved bool
	// reserved keeps the reservations carried from pass to pass, stores
	// them and restores them at a start (reservations.go).
	reserved carriedReservations
	// roster holds the snapshot's jobs from pass to pass (roster.go).
	roster jobRoster
	// settler runs the passes (schedule).
	settler lifecycle.Settler
	// passMu serialises the passes (Step holds it, then mu): the core's
	// Schedule runs without mu, and only one pass at a time may write
	// what it reads (stale.go). mu is never held while it is taken.
	passMu sync.Mutex
	// built is what the applier re-checks the plan against (stale.go).
	built builtFacts
	// limits kills the tasks past their time limits (timelimits.go).
	limits timeLimits
}

// schedule runs passes of the core and applies their plans, by the
// settle loop the simulator runs (lifecycle.Settler.Settle, with the
// planner's settling as its Driver): passes until one changes nothing
// (or, when every pool runs FIFO or backfill and no elastic job was seen,
// until one starts without preempting: lifecycle.Settled, OneShot),
// carrying conservative reservations from pass to pass. An idle tick's
// first pass carries nothing, so that conservative backfilling compresses
// its schedule on events only, as in simulation. Once settled it stores
// what the passes leave for a restart. Callers hold passMu and mu; each
// pass releases mu while the core schedules (settling.Build, Scheduled).
func (pl *planner) schedule(ctx context.Context) error {
	event := pl.m.event
	pl.m.event = false
	pl.settler.MaxPasses = maxPasses
	s := &settling{pl: pl, ctx: ctx, at: pl.m.now()}
	for refused := 0; ; refused++ {
		_, err := pl.settler.Settle(s, &pl.sc, event)
		if err == nil {
			break
		}
		if refused == maxSetAside || !setAside(pl.m, &pl.roster, err) {
			return err
		}
	}
	if err := pl.saveGrew(ctx); err != nil {
		return err
	}
	return pl.reserved.save(ctx, pl.m)
}

// betweenSettlings waits for the settling in flight, if any, and keeps
// the next from starting until the returned func is called: a node's
// loss, goodbye, return, registration, drain, resume or deletion is
// taken between two settlings, never between two passes of one (nor
// while the core plans), and so is a configuration reload (reload.go). The what-if export orders a node event against
// a second's passes only by the times of whole settlings' decisions
// (afterPassAt), and the simulator settles an instant whole before an
// after_pass event; a node event taken mid-settling made the passes
// after it plan with the node changed where the replay's did not
// (TestReplayNodeEventMidSettling). The wait is one settling at most,
// its passes until settled; the event is stored when it is taken, so
// persist before act holds. Callers must not hold mu (passMu comes
// first).
func (m *Master) betweenSettlings() (done func()) {
	if nodeEventWaits != nil {
		nodeEventWaits()
	}
	m.planner.passMu.Lock()
	return m.planner.passMu.Unlock
}

// settling is the planner as the Driver of one schedule's passes: each
// pass's snapshot is built from the mirror (snapshot.go), and its effects
// are applied to the mirror, persisted before they are acted on
// (apply.go). Its effects name the snapshot's allocations, which current
// resolves.
//
// Its passes build and apply at one instant, at, as the Cluster's Step
// settles the instant it is given: the snapshots' Now is at's Unix
// seconds, and the rows the passes store (transitions, attempts' starts,
// the jobs they set running) are stamped at, the clock read once as the
// schedule began. But for one rule: the core plans without mu, and a
// handler that changes a job meanwhile (a submission admitted, an exit,
// a kill, an agent's word that a task runs) or asks for a pass stamps
// its change at its own reading of the clock; the pass that planned
// meanwhile applies, and the passes after it build, at the clock read
// again once mu is back (Scheduled), never earlier, so that no pass
// reads a fact stamped after its instant and no stored row comes before
// the handler's it follows (a start on GPUs an exit freed, a start of a
// job submitted meanwhile).
type settling struct {
	pl  *planner
	ctx context.Context
	// began is when the pass's build began, for its metric.
	began time.Time
	// at is the settling's instant (see above); changes is
	// Master.changes as the pass released mu.
	at      time.Time
	changes uint64
}

// Idle is never true: the master has no full-cluster shortcut.
func (s *settling) Idle() bool { return false }

// Build builds the snapshot at the settling's instant, then releases mu
// for the core's Schedule, which reads only the snapshot (stale.go);
// Scheduled takes mu again. No batch is open here: the last pass's has
// committed.
func (s *settling) Build() (*sched.Snapshot, []int32) {
	s.began = time.Now()
	s.pl.build(s.at)
	s.changes = s.pl.m.changes
	s.pl.m.unlock()
	if passReleased != nil {
		passReleased()
	}
	return &s.pl.snap, nil
}

// Scheduled records the pass's time, takes mu again, moves the instant
// on where a handler changed something meanwhile (settling), and records
// the plan's pending reasons, unless a reload voided the plan (stale).
func (s *settling) Scheduled(plan *sched.Plan, err error) error {
	// Snapshot and core, as the metric says, not the wait for mu.
	s.pl.m.metric.passSeconds.Observe(time.Since(s.began).Seconds())
	if passUnlocked != nil {
		passUnlocked(plan)
	}
	s.pl.m.lock()
	if s.pl.m.changes != s.changes {
		if now := s.pl.m.now(); now.After(s.at) {
			s.at = now
		}
	}
	if err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	if s.stale() {
		s.pl.m.kick() // the reload kicked a pass already
		return nil
	}
	s.pl.notePending(plan)
	noteStartPriorities(s.pl, plan)
	return nil
}

// stale reports whether a reload voided the plan since the build.
func (s *settling) stale() bool { return s.pl.built.stale(s.pl.m.cfgGen) }

// Carry is carriedReservations.keep, but for a plan a reload voided.
func (s *settling) Carry(plan *sched.Plan) {
	if !s.stale() {
		s.pl.reserved.keep(&s.pl.roster, plan)
	}
}

// Replacing reports whether allocation a is a task's reserved placement
// or belongs to a task whose move or resize is under way. Like OnDrained
// it asks the mirror as it is once the core has planned, which is the
// build's unless a handler changed it meanwhile: only an agent's report
// ends a move, and the attempt it restarts is not the allocation's
// (current checks the attempt).
func (s *settling) Replacing(a int32) bool {
	r := s.pl.view.allocs[a]
	return r.next || r.t.Replacement.Replacing()
}

// OnDrained reports whether allocation a's task has a part on a draining
// node.
func (s *settling) OnDrained(a int32) bool {
	t := s.pl.view.allocs[a].t
	return t.att != nil && s.pl.onDrainingNode(t)
}

// Apply applies the effects in one batch, or with no transaction when the
// plan holds nothing to store.
func (s *settling) Apply(plan *sched.Plan, effects []lifecycle.Effect) (starts, changes int, err error) {
	if s.stale() {
		return 0, 0, nil // another configuration's plan: the next pass plans again
	}
	apply := func() (err error) {
		starts, changes, err = s.pl.apply(s.ctx, effects, s.at)
		return err
	}
	if len(plan.Starts)+len(plan.Preemptions)+len(plan.Moves)+len(plan.Resizes) > 0 {
		err = s.pl.m.batches.inBatch(s.ctx, apply)
	} else {
		err = apply() // nothing to store: no transaction
	}
	return starts, changes, err
}

// Again is never true: the master's snapshot has no FIFO window.
func (s *settling) Again() bool { return false }

// OneShot is lifecycle.OneShot of the pools and whether an elastic job
// was ever seen (grew, which a build may set).
func (s *settling) OneShot() bool { return lifecycle.OneShot(s.pl.snap.Pools, s.pl.grew) }

// notePending records the plan's pending reasons on the jobs, and clears
// the reason of jobs the plan does not call pending; the order of each
// pool's pending jobs goes to the read view (noteTurns).
func (pl *planner) notePending(plan *sched.Plan) {
	pl.m.waits.creditPass(&pl.roster, pl.snap.Now) // waitledger.go
	r := &pl.roster
	for _, ri := range r.List() {
		r.jobs[ri].pending = nil
	}
	var borrow map[borrowKey]int // over_quota only; nil until one
	var resized map[int]api.SlotChange
	resizedKnown := false // checkpointing only; looked up at the first
	down := newDownView(pl.m.nodes, &pl.snap)
	var away *awayView                              // no_nodes only; nil until one (awaynodes.go)
	grows := growNotes{s: &pl.snap}                 // growsfirst.go
	preempts := preemptNotes{pl: pl, grows: &grows} // preemptlist.go
	pl.m.pub.beginTurns()
	for _, pe := range plan.Pending {
		// Each job keeps one explanation and rewrites it: a pass over a
		// long queue allocates nothing for it.
		j := r.at(pe.Job)
		if pe.Reason == sched.ReasonOverQuota && borrow == nil {
			borrow = map[borrowKey]int{}
		}
		if pe.Reason == sched.ReasonCheckpointing && !resizedKnown {
			resized, resizedKnown = resizedAllocs(pl), true
		}
		j.pendBuf = pendingInfo{p: pe, now: pl.snap.Now, ctx: pendingContextOf(&pl.snap, plan, pe, borrow, resized)}
		if pe.Reason == sched.ReasonMaxConcurrent {
			j.pendBuf.ctx.capped = cappedMessage(&pl.snap.Jobs[pe.Job], &j.rec)
		}
		if pe.Reason == sched.ReasonReserved {
			j.pendBuf.ctx.growsFirst = grows.note(pe.Job)
		}
		j.pendBuf.ctx.preempt = preempts.note(pe)
		j.pendBuf.ctx.down = down.message(pe)
		if (pe.Reason == sched.ReasonNoNodes || pe.Reason == sched.ReasonGPUType) && pe.Job >= 0 && pe.Job < len(pl.snap.Jobs) {
			if away == nil {
				away = newAwayView(pl.m, pl.view.pools, &pl.snap)
			}
			j.pendBuf.ctx.away, j.pendBuf.ctx.awayNever = away.messages(&pl.snap.Jobs[pe.Job])
		}
		if j.pendBuf.ctx.noneUp {
			j.pendBuf.ctx.gone = pl.m.goneNodes(j.pendBuf.ctx.pool)
		}
		if pe.Blocker >= 0 && pe.Blocker < len(pl.snap.Jobs) {
			j.pendBuf.blockerID = pl.snap.Jobs[pe.Blocker].ID
		}
		j.pending = &j.pendBuf
		if pe.Priority != 0 {
			j.startMF = pe.Priority // its pending changed with it: the view is marked
		}
		pl.m.pub.addTurn(pe, j.rec.ID, pl.snap.Jobs[pe.Job].Pool)
	}
	for _, ri := range r.List() {
		pl.m.pub.notePendingOf(r.jobs[ri])
	}
	pl.m.pub.noteTurns(pl.snap.Pools)
}

// killTask moves an active task to killing, persisted, then sends kill
// commands to its parts with the pool's kill_grace: SIGTERM, and SIGKILL
// of what is left once the grace is over. The task holds its GPUs,
// killing, until its parts report their ends. endTo is the terminal
// state it ends in; the kill and its end keep cause
// (store.TaskTransition). The task's record of the kill is a
// lifecycle.Stop, as the Cluster's task's: a kill for cause time_limit
// is its LimitKill (which ends it killed), so that its end is timed out
// whatever kill comes meanwhile, as in the Cluster.
func (m *Master) killTask(ctx context.Context, t *mtask, endTo store.TaskState, reason string, cause store.Cause) error {
	if t.att == nil || t.rec.State == store.TaskKilling {
		return nil
	}
	rec, err := m.batches.w().TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
		From: t.rec.State, To: store.TaskKilling, Attempt: t.rec.Attempt, At: m.now(), Reason: reason, Cause: cause})
	if err != nil {
		return err
	}
	m.setTask(t, rec)
	if cause == store.CauseTimeLimit {
		t.Stop.LimitKill(string(cause)) // ends killed
	} else {
		t.Stop.Kill(endTo, string(cause))
	}
	m.sendAll(t, api.CommandKill, poolKillGrace(m.cfg, t.job.rec.Pool))
	m.log.Info("killing task", "task", t.id().String(), "reason", reason)
	return nil
}

// saveGrew stores grew (store.MarkGrows) the first time it is set, once
// the passes of a scheduling have settled, in the batch when there is
// one; grewSaved follows once the write is durable, so that a batch that
// fails leaves it to the next scheduling. Callers hold mu.
func (pl *planner) saveGrew(ctx context.Context) error {
	if !pl.grew || pl.grewSaved {
		return nil
	}
	if err := pl.m.batches.w().Mark(ctx, store.MarkGrows); err != nil {
		return fmt.Errorf("store that an elastic job was scheduled: %w", err)
	}
	pl.m.batches.later(func() { pl.grewSaved = true })
	return nil
}
