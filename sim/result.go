package sim

import "slices"

// State is a job's state in a result.
type State string

// Job states in results.
const (
	StatePending   State = "pending"
	StateRunning   State = "running"
	StateCompleted State = "completed"
	StateKilled    State = "killed"
)

// Result is the outcome of a run; its JSON form is a public contract.
type Result struct {
	Jobs []JobResult `json:"jobs"`
	// Timeline is nil when it was not recorded.
	Timeline []TimelineEntry `json:"timeline,omitempty"`
	Metrics  Metrics         `json:"metrics"`
	// End is the clock when the run stopped.
	End int64 `json:"-"`
	// TotalSlots is the cluster's size in slots.
	TotalSlots int `json:"-"`
}

// JobResult is one job's outcome. Start, End and Wait are nil when the job
// never started or has not ended.
type JobResult struct {
	Name        string `json:"name"`
	State       State  `json:"state"`
	Submit      int64  `json:"submit"`
	Start       *int64 `json:"start"`
	End         *int64 `json:"end"`
	Wait        *int64 `json:"wait"`
	Preemptions int    `json:"preemptions"`
	// Reason explains, for a job still waiting when the run stopped, why
	// it waits.
	Reason string `json:"reason,omitempty"`
	seq    int64
}

// TimelineEntry gives the slots each job holds after a change.
type TimelineEntry struct {
	Time  int64          `json:"time"`
	Slots map[string]int `json:"slots"`
}

// Metrics summarise a run.
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
}

// recorder accumulates results as the run goes.
type recorder struct {
	s          *sim
	jobs       []JobResult
	timeline   []TimelineEntry
	heldTotal  int64
	busy       float64 // slot-seconds held
	last       int64   // time busy was integrated to
	started    bool
	firstSub   int64
	lastEnd    int64
	dirty      bool
	preempts   int
	totalSlots int
}

func (r *recorder) init(s *sim) {
	r.s = s
	r.firstSub, r.lastEnd = -1, -1
	for i := range s.snap.Nodes {
		r.totalSlots += s.snap.Nodes[i].Slots
	}
}

// advance integrates held slots up to time t.
func (r *recorder) advance(t int64) {
	if r.started {
		r.busy += float64(r.heldTotal) * float64(t-r.last)
	}
	r.started = true
	r.last = t
	if r.firstSub < 0 && r.s.hasNext && r.s.next.Submit == t {
		r.firstSub = t
	}
}

func (r *recorder) hold(ji int32, slots int) {
	r.heldTotal += int64(slots)
	r.dirty = true
}

func (r *recorder) preempted(ji int32) { r.preempts++ }

func (r *recorder) finished(ji int32) {
	j := &r.s.jobs[ji]
	r.lastEnd = max(r.lastEnd, j.end)
	r.jobs = append(r.jobs, r.jobResult(j))
}

// settled records a timeline entry if allocations changed at this time.
func (r *recorder) settled() {
	if !r.dirty || !r.s.opt.Timeline {
		r.dirty = false
		return
	}
	r.dirty = false
	e := TimelineEntry{Time: r.s.now, Slots: map[string]int{}}
	for _, ji := range r.s.active {
		if j := &r.s.jobs[ji]; j.alive && j.held > 0 {
			e.Slots[j.spec.Name] = j.held
		}
	}
	r.timeline = append(r.timeline, e)
}

func (r *recorder) jobResult(j *job) JobResult {
	jr := JobResult{Name: j.spec.Name, State: j.state, Submit: j.spec.Submit, Preemptions: j.preempt, seq: j.seq}
	if j.start >= 0 {
		start, wait := j.start, j.start-j.spec.Submit
		jr.Start, jr.Wait = &start, &wait
	}
	if j.end >= 0 && !j.alive {
		end := j.end
		jr.End = &end
	}
	return jr
}

// result assembles the final result, explaining jobs still waiting with
// one more scheduling pass whose plan is not applied.
func (s *sim) result() *Result {
	r := &s.rec
	res := &Result{Jobs: r.jobs, End: s.now, TotalSlots: r.totalSlots}
	reasons := s.finalReasons()
	for _, ji := range s.active {
		j := &s.jobs[ji]
		if !j.alive {
			continue
		}
		jr := r.jobResult(j)
		jr.Reason = reasons[ji]
		res.Jobs = append(res.Jobs, jr)
	}
	slices.SortFunc(res.Jobs, func(a, b JobResult) int { return int(a.seq - b.seq) })
	if s.opt.Timeline {
		res.Timeline = r.timeline
		if res.Timeline == nil {
			res.Timeline = []TimelineEntry{}
		}
	}
	res.Metrics = r.metrics(res, s)
	return res
}

func (s *sim) finalReasons() map[int32]string {
	out := map[int32]string{}
	s.buildSnapshot()
	plan, err := s.scheduler.Schedule(&s.snap)
	if err != nil {
		return out
	}
	for _, p := range plan.Pending {
		out[s.snapJob[p.Job]] = p.Message(&s.snap)
	}
	return out
}

func (r *recorder) metrics(res *Result, s *sim) Metrics {
	m := Metrics{Preemptions: r.preempts}
	end := r.lastEnd
	for _, ji := range s.active {
		if s.jobs[ji].alive {
			end = s.now // unfinished work: the window runs to the end of the run
			break
		}
	}
	if r.firstSub >= 0 && end > r.firstSub {
		m.Makespan = end - r.firstSub
	}
	if m.Makespan > 0 && r.totalSlots > 0 {
		m.Utilization = round(r.busy/(float64(r.totalSlots)*float64(m.Makespan)), 6)
	}
	var waits, jcts float64
	var nw, nj int
	for _, jr := range res.Jobs {
		if jr.Wait != nil {
			waits += float64(*jr.Wait)
			nw++
		}
		if jr.End != nil {
			jcts += float64(*jr.End - jr.Submit)
			nj++
		}
	}
	if nw > 0 {
		m.AvgWait = round(waits/float64(nw), 3)
	}
	if nj > 0 {
		m.AvgJCT = round(jcts/float64(nj), 3)
	}
	return m
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
