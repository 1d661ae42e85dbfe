package sched

// A pool's policy is a stageList (policies.go): an order stage that yields
// the job whose turn it is, an optional filter stage that admits each
// task, a preempt stage that makes room when a task does not fit, and a
// gate that decides what the jobs behind a blocked one do. One driver,
// runStages, walks every pool from its list; placement (fit, place) is
// the shared tryPlace, with consolidation and elastic shrinking. Every
// stage records its outcome as the core's reason codes (reason.go) in
// Plan.Pending, first reason winning (addPending); after the walk each
// entry is given its turn in the order the order stage offered the jobs
// (numberTurns).

// orderStage yields a pool's slot jobs in the policy's order. A static
// order (FIFO, priority, multifactor) yields each job once, and a turn
// runs all the job's waiting tasks; a dynamic order (fair-share deficit,
// quota deprivation) ranks jobs again after every task placed, so a turn
// is one task.
type orderStage interface {
	// begin takes the pool's slot jobs, in index order, and prepares the
	// queue (sorting it, or computing shares).
	begin(p *pass, pool int, jobs []int32)
	// next returns the job whose turn it is, or -1 when the walk is over.
	// A static order skips, with their no_nodes reason, jobs that could
	// never fit.
	next(p *pass) int32
	// placed is told that a task of slots slots started or was held for
	// j; it reports whether j's turn goes on (false: the order re-ranks).
	placed(p *pass, j, slots int32) bool
	// failed is told that j's turn ended on a task that found no room.
	failed(p *pass, j int32)
	// done ends j's turn, whatever its outcome.
	done(p *pass, j int32)
	// rest is the queue from the current job on, for a gate that takes
	// it over; nil for dynamic orders.
	rest() []int32
	// offered is the pool's slot jobs in the order the stage offered
	// them, which Pending.Turn numbers: a static order's sorted queue,
	// which the walk and the gates follow (a job skipped as no_nodes,
	// dealt with by a gate, or left when the walk stopped early keeps its
	// place); a dynamic order's jobs at their first turn (turns.offer).
	offered(p *pass) []int32
	// end closes the walk: reasons for every job left waiting.
	end(p *pass)
}

// filterStage admits, or refuses with a recorded reason, each task of a
// job before placement is tried (quota limits, for example). again is
// set when the task is tried again at a smaller size (an elastic job).
type filterStage interface {
	admit(p *pass, j int32, again bool) admission
}

// admission is a filter's verdict on a task.
type admission uint8

const (
	refuse admission = iota
	admitTask
	// admitHold: the task may be placed as usual but not start in this
	// pass: it is held (checkpointing) until tasks of its project drain,
	// whose slots count toward the project's limit until then.
	admitHold
	// admitPreemptOnly: the task is placed only by its preempt stage,
	// which must free slots of its project's own preemptible work (work
	// over its project's limit that may take that work's place); it is
	// held until they drain.
	admitPreemptOnly
)

// preemptStage makes room for a task that did not fit on free or
// draining slots, choosing victims by its rule and guards.
type preemptStage interface {
	// begin prepares the pool's victim list, end drops what begin built.
	begin(p *pass, pool int)
	end(p *pass)
	// try places one task of j (of slots slots) by preempting, or fails.
	try(p *pass, j, slots int32) outcome
}

// gateStage decides what happens behind a job that could not start: the
// rest waits (behind, serial), or backfills idle slots, or backfills
// around a reservation (EASY), or every job gets a reservation
// (conservative). Only the open gate goes with a dynamic order: the
// others turn jobs away, and a dynamic order would yield the same job
// again.
type gateStage interface {
	// begin reports whether the gate takes the whole queue itself.
	begin(p *pass, pool int, queue []int32) bool
	// stop reports whether the walk ends here (Scheduler.OmitBehind).
	stop(p *pass) bool
	// admit reports whether j may run its turn; if not, the gate has dealt
	// with it (a reason, or a backfill).
	admit(p *pass, j int32) bool
	// block is told that j could not start; it records why, and reports
	// whether it took over the rest of the queue (from j on).
	block(p *pass, j int32, rest []int32) bool
}

// runStages runs one pool from its stages: the walk over slot jobs,
// then the zero-slot tasks, then elastic growth.
func (p *pass) runStages(pool int, sl *stageList) {
	pendMark, startMark := len(p.plan.Pending), len(p.plan.Starts)
	p.sc.turns.begin(pendMark)
	p.elastic.beginPool(pool, pendMark)
	jobs, zero := p.sc.poolJobs[pool], p.sc.zeroJobs[pool]
	ord, flt, pre, gate := p.sc.stg.resolve(sl)
	ord.begin(p, pool, jobs)
	if !gate.begin(p, pool, ord.rest()) {
		pre.begin(p, pool)
		p.walk(ord, flt, pre, gate)
		pre.end(p)
	}
	ord.end(p)
	offered := ord.offered(p)
	if len(zero) > 0 {
		p.sortZero(pool, zero, sl.zero)
		p.zeroSlotJobs(zero)
	}
	if sl.order == byMultifactor {
		// Each pending or started job of the pool shows its computed
		// priority.
		for i := pendMark; i < len(p.plan.Pending); i++ {
			pe := &p.plan.Pending[i]
			pe.Priority = p.sc.mf.prio[pe.Job]
		}
		for i := startMark; i < len(p.plan.Starts); i++ {
			st := &p.plan.Starts[i]
			st.Priority = p.sc.mf.prio[st.Job]
		}
	}
	p.numberTurns(pendMark, offered, zero)
	p.elastic.expand(pool, pendMark)
}

// walk is the one queue loop of every policy.
func (p *pass) walk(ord orderStage, flt filterStage, pre preemptStage, gate gateStage) {
	for !gate.stop(p) {
		j := ord.next(p)
		if j < 0 {
			return
		}
		if gate.admit(p, j) && p.turn(j, ord, flt, pre) == failed {
			ord.failed(p, j)
			if gate.block(p, j, ord.rest()) {
				return
			}
		}
		ord.done(p, j)
	}
}

// turn places tasks of j until it wants no more, its order ends the turn,
// or a task finds no room even after preempting and shrinking.
func (p *pass) turn(j int32, ord orderStage, flt filterStage, pre preemptStage) outcome {
	again := false
	for p.wants(j) {
		a := admitTask
		if flt != nil {
			if a = flt.admit(p, j, again); a == refuse {
				return failed
			}
		}
		slots := p.elastic.size(j)
		o := failed
		p.hold = a != admitTask
		if a != admitPreemptOnly {
			o = p.tryPlace(j, false)
		}
		if o == failed {
			o = pre.try(p, j, slots)
		}
		p.hold = false
		if o == failed {
			if p.elastic.shrink(j) {
				again = true
				continue // an elastic job tries half the size
			}
			return failed
		}
		if !ord.placed(p, j, slots) {
			return o
		}
	}
	return started
}

// sortZero orders the pool's zero-slot jobs.
func (p *pass) sortZero(pool int, zero []int32, by orderName) {
	switch by {
	case byPriority:
		p.sortPriority(zero)
	case byMultifactor:
		p.sc.mf.sortJobs(p, pool, zero, listMFZero)
	default:
		p.sortFIFO(zero)
	}
}

// staticOrder walks a sorted queue once, one job per turn.
type staticOrder struct {
	by   orderName
	jobs []int32
	i    int
}

func (o *staticOrder) begin(p *pass, pool int, jobs []int32) {
	switch o.by {
	case byPriority:
		p.sortQueue(pool, jobs, orderPriority)
	case byMultifactor:
		p.sc.mf.priorities(p, pool, jobs)
		p.sc.mf.priorities(p, pool, p.sc.zeroJobs[pool])
		p.sc.mf.sortJobs(p, pool, jobs, listMFJobs)
	default:
		p.sortQueue(pool, jobs, orderFIFO)
	}
	o.jobs, o.i = jobs, 0
}

func (o *staticOrder) next(p *pass) int32 {
	for o.i < len(o.jobs) {
		j := o.jobs[o.i]
		o.i++
		if !p.impossible(j) {
			if o.by == byPriority || o.by == byMultifactor {
				p.elastic.growAhead(j) // elastic_ahead.go
			}
			return j
		}
	}
	return -1
}

func (o *staticOrder) placed(*pass, int32, int32) bool { return true }
func (o *staticOrder) failed(*pass, int32)             {}
func (o *staticOrder) done(p *pass, j int32)           { p.finish(j) }
func (o *staticOrder) end(*pass)                       {}

func (o *staticOrder) rest() []int32 { return o.jobs[max(o.i-1, 0):] }

func (o *staticOrder) offered(*pass) []int32 { return o.jobs }
