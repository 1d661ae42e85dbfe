package sched

// stageList declares a policy: which stage of each kind runs a pool
// (stages.go). A new policy is a new entry of declare, plus at most one
// new stage.
type stageList struct {
	order   orderName
	filter  filterName
	preempt preemptName
	gate    gateName
	// omitBehind lets the gate end the walk early under
	// Scheduler.OmitBehind (behind and EASY gates).
	omitBehind bool
	// zero orders the zero-slot jobs: byFIFO, byPriority or byMultifactor.
	zero orderName
}

type orderName uint8

const (
	byFIFO         orderName = iota // submit time, sequence, ID
	byPriority                      // Job.Priority, then FIFO
	byMultifactor                   // computed priority, then fair-share standing, then FIFO
	byShareDeficit                  // fair share: lowest allocation / (demand × weight) first
	byQuotaRounds                   // quota: the most deprived project's next workload
)

type filterName uint8

const (
	filterNone  filterName = iota
	filterQuota            // project limits, quota for guaranteed work, licenses
)

type preemptName uint8

const (
	preemptNone       preemptName = iota
	preemptByPriority             // less important preemptible (or backfilled) tasks
	preemptByQOS                  // lower QOS and lower computed priority
	preemptAboveShare             // jobs that stay at or above their fair share
	preemptReclaim                // own project's unattended work, then over-quota projects
)

type gateName uint8

const (
	gateOpen            gateName = iota // no blocking: a failed job drops out
	gateBehind                          // head-of-line blocking
	gateSerial                          // one job at a time
	gateIdle                            // priority backfill on idle slots
	gateEASY                            // EASY reservation for the head
	gateConservative                    // reservations from the blocked job on
	gateConservativeAll                 // reservations for the whole queue
)

// declare is the table of built-in policies: each policy, with the
// pool's options, as its stages.
func declare(pl *Pool) stageList {
	switch pl.Policy {
	case PolicyFIFO:
		if pl.Serial {
			return stageList{order: byFIFO, gate: gateSerial, zero: byFIFO}
		}
		return stageList{order: byFIFO, gate: gateBehind, omitBehind: true, zero: byFIFO}
	case PolicyBackfill:
		if pl.Reservations == ReserveConservative {
			return stageList{order: byFIFO, gate: gateConservativeAll, zero: byFIFO}
		}
		return stageList{order: byFIFO, gate: gateEASY, omitBehind: true, zero: byFIFO}
	case PolicyPriority:
		if pl.Backfill {
			return stageList{order: byPriority, preempt: preemptByPriority, gate: gateIdle, zero: byPriority}
		}
		return stageList{order: byPriority, preempt: preemptByPriority, gate: gateBehind, omitBehind: true, zero: byPriority}
	case PolicyFairShare:
		return stageList{order: byShareDeficit, preempt: preemptAboveShare, gate: gateOpen, zero: byFIFO}
	case PolicyQuota:
		return stageList{order: byQuotaRounds, filter: filterQuota, preempt: preemptReclaim, gate: gateOpen, zero: byPriority}
	case PolicyMultifactor:
		sl := stageList{order: byMultifactor, preempt: preemptByQOS, gate: gateBehind, zero: byMultifactor}
		switch {
		case pl.Backfill && pl.Reservations == ReserveConservative:
			sl.gate = gateConservative
		case pl.Backfill:
			sl.gate = gateEASY
		}
		return sl
	}
	return stageList{order: byFIFO, gate: gateBehind, zero: byFIFO} // validate rejects other policies
}

// stages holds one value of every stage, reused from pool to pool and
// pass to pass, so that resolving a stageList allocates nothing.
type stages struct {
	static  staticOrder
	share   shareOrder
	rounds  quotaOrder
	quota   quotaFilter
	prio    priorityPreempt
	qos     qosPreempt
	above   sharePreempt
	reclaim reclaimPreempt
	behind  behindGate
	serial  serialGate
	idle    idleGate
	easy    easyGate
	cons    conservativeGate
}

// resolve returns the stages a list names, set up for a new pool.
func (s *stages) resolve(sl *stageList) (orderStage, filterStage, preemptStage, gateStage) {
	var ord orderStage
	switch sl.order {
	case byShareDeficit:
		ord = &s.share
	case byQuotaRounds:
		ord = &s.rounds
	default:
		s.static.by = sl.order
		ord = &s.static
	}
	var flt filterStage
	if sl.filter == filterQuota {
		flt = &s.quota
	}
	var pre preemptStage = noPreempt{}
	switch sl.preempt {
	case preemptByPriority:
		pre = &s.prio
	case preemptByQOS:
		pre = &s.qos
	case preemptAboveShare:
		pre = &s.above
	case preemptReclaim:
		pre = &s.reclaim
	}
	return ord, flt, pre, s.gate(sl)
}

func (s *stages) gate(sl *stageList) gateStage {
	switch sl.gate {
	case gateBehind:
		s.behind.omit = sl.omitBehind
		return &s.behind
	case gateSerial:
		return &s.serial
	case gateIdle:
		return &s.idle
	case gateEASY:
		s.easy.omit = sl.omitBehind
		return &s.easy
	case gateConservative, gateConservativeAll:
		s.cons.whole = sl.gate == gateConservativeAll
		return &s.cons
	}
	return openGate{}
}
