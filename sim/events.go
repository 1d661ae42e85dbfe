package sim

// evKind orders events that fall at the same time: ends free slots before
// new work arrives, so that a job submitted at the moment another ends
// sees the freed slots, as in the usual trace simulators.
type evKind uint8

const (
	// evReport: a trial of an experiment with a searcher reports a metric
	// (search.go). It comes before evEnd so that the report at max_length
	// is judged before the trial ends.
	evReport evKind = iota
	// evFail: a task fails as its job's spec scripts (fail.go); before
	// evEnd, so that a task failing as its work ends fails.
	evFail
	// evStop: a task is stopped as its job's spec scripts (JobSpec.Stops,
	// fail.go); before evEnd, as evFail.
	evStop
	// evStartFail: a task's start failed (JobSpec.StartFails, fail.go),
	// pushed at the instant of the start.
	evStartFail
	evEnd        // a task completes or hits its time limit
	evCheckpoint // a preempted task finished checkpointing
	// evLeftLanded: the parts of a lost gang on nodes still up ended,
	// their checkpoint landed (lifecycle's EventLeftLanded, leaving).
	evLeftLanded
	// evKillEnd: a kill that took its time (JobSpec.SlowKills) ends its
	// attempt, its agent's report of the end an exit's as an end's is.
	evKillEnd
	// evAgentPreempted: an attempt's agent preempted it as it shut down
	// (JobSpec.AgentPreempted, agentstop.go), its exit a report as an
	// end's is.
	evAgentPreempted
	// evStartLost: a start no agent answered is given up
	// (JobSpec.StartLost, fail.go), after the ends and landings of its
	// instant, as the master applies an agent's reports before it looks
	// for the starts it does not run.
	evStartLost
	// evAttemptLost: an attempt is lost, its node up (JobSpec.Lost,
	// fail.go), with the lost starts of its instant, as the master finds
	// both when an agent syncs, after its reports.
	evAttemptLost
	evScript // a scripted event: kill, set_priority, set_weight
	// evGrace: the lost-node grace of a node's loss runs out
	// (lifecycle's EventGraceOver), after the scripted events of its
	// instant, as the master checks its lost nodes after an instant's
	// node events.
	evGrace
	// evWake only asks for a pass: a thrash guard lifts (a task reaches
	// its pool's minimum run time, or a preemption leaves its project's
	// budget hour), which may let a waiting task start.
	evWake
)

type event struct {
	at   int64
	kind evKind
	seq  uint64
	ref  int32  // task slot, or script event index
	ver  uint32 // the task's version when scheduled; stale events are skipped
}

// queue is a binary min-heap of events by (at, kind, seq). It is written
// out rather than built on container/heap to avoid boxing every event.
type queue struct {
	items []event
	seq   uint64
}

func (q *queue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

func (q *queue) less(i, k int) bool {
	a, b := &q.items[i], &q.items[k]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

func (q *queue) pop() event {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
}

func (q *queue) empty() bool { return len(q.items) == 0 }

func (q *queue) peek() int64 { return q.items[0].at }
