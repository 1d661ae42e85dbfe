package metrics

import "slices"

// MaxProjects caps the projects tracked one by one; jobs of any further
// project are counted under OtherProject, so that a trace with a new
// group id on every line cannot make memory grow with its length.
const MaxProjects = 4096

// OtherProject collects the projects beyond MaxProjects.
const OtherProject = "(other)"

// Sample is the fixed-size record kept per job for percentiles: 24 bytes,
// so a million-job trace needs 24 MB and nothing per job is a pointer.
type Sample struct {
	// Wait is start − submit, or -1 if the job never started.
	Wait int64
	// Response is end − submit, or -1 if the job has not ended.
	Response int64
	// Run is the time the job held slots.
	Run int64
}

type project struct {
	name     string
	demand   int // slots its live jobs would hold if they all ran
	held     int
	share    float64 // current entitlement in slots
	heldSecs float64
	entSecs  float64
	jobs     int
	waitSum  float64
	started  int
	active   bool
	heldB    []float64 // per-bucket integrals, when series are kept
	entB     []float64
}

// Collector accumulates a run's metrics as its state changes. The caller
// reports changes as they happen and calls Advance before the clock
// moves; between Advance calls the state is constant, so integrals are
// exact. The zero value is not ready; use NewCollector.
type Collector struct {
	slots    int
	last     int64
	begun    bool
	held     int
	queue    int
	maxQueue int
	busy     float64 // slot-seconds held
	queueSec float64 // job-seconds queued
	lost     float64 // slot-seconds spent checkpointing after preemption
	projects []project
	byName   map[string]int32
	active   []int32 // projects with demand > 0
	claims   []claim
	shares   []float64
	dirty    bool
	samples  []Sample
	series   bool
	b        buckets
	acc      accountFair
}

// NewCollector returns a collector for a cluster of slots slots; with
// series it also keeps the time series.
func NewCollector(slots int, series bool) *Collector {
	return &Collector{slots: slots, byName: map[string]int32{}, series: series}
}

// Project returns the index of the named project, adding it on first use.
func (c *Collector) Project(name string) int32 {
	if p, ok := c.byName[name]; ok {
		return p
	}
	if len(c.projects) >= MaxProjects-1 && name != OtherProject {
		return c.Project(OtherProject)
	}
	p := int32(len(c.projects))
	c.byName[name] = p
	c.projects = append(c.projects, project{name: name})
	c.shares = append(c.shares, 0)
	if c.series {
		c.projects[p].heldB = make([]float64, MaxBuckets)
		c.projects[p].entB = make([]float64, MaxBuckets)
	}
	return p
}

// Advance integrates the current state from the previous Advance up to t.
// The first call sets the start of the run (and of the series).
func (c *Collector) Advance(t int64) {
	if !c.begun {
		c.begun, c.last = true, t
		c.acc.begin(t)
		if c.series {
			c.b.init(t)
		}
		return
	}
	if t <= c.last {
		return
	}
	if c.dirty {
		c.entitle()
	}
	if c.acc.dirty {
		c.acc.entitle(c.last)
	}
	dt := float64(t - c.last)
	// The queue is measured over time, so a job queued and started at the
	// same instant never counts.
	c.maxQueue = max(c.maxQueue, c.queue)
	c.busy += float64(c.held) * dt
	c.queueSec += float64(c.queue) * dt
	for _, pi := range c.active {
		p := &c.projects[pi]
		p.heldSecs += float64(p.held) * dt
		p.entSecs += p.share * dt
	}
	if c.series {
		c.integrate(c.last, t)
	}
	c.last = t
}

// integrate adds [from, to) to the buckets.
func (c *Collector) integrate(from, to int64) {
	for range c.b.fit(to) {
		for i := range c.projects {
			merge(c.projects[i].heldB)
			merge(c.projects[i].entB)
		}
	}
	for from < to {
		i, end := c.b.bucket(from, to)
		secs := float64(end - from)
		c.b.busy[i] += float64(c.held) * secs
		c.b.queue[i] += float64(c.queue) * secs
		for _, pi := range c.active {
			p := &c.projects[pi]
			p.heldB[i] += float64(p.held) * secs
			p.entB[i] += p.share * secs
		}
		from = end
	}
}

// entitle recomputes every active project's max-min fair share.
func (c *Collector) entitle() {
	c.dirty = false
	keep := c.active[:0]
	c.claims = c.claims[:0]
	for _, pi := range c.active {
		p := &c.projects[pi]
		if p.demand <= 0 && p.held <= 0 {
			p.active, p.share = false, 0
			continue
		}
		keep = append(keep, pi)
		c.claims = append(c.claims, claim{demand: float64(p.demand), idx: pi})
	}
	c.active = keep
	maxMinFair(float64(c.slots), c.claims, c.shares)
	for _, pi := range c.active {
		c.projects[pi].share = c.shares[pi]
	}
}

// Demand changes the slots a project's live jobs would hold if all ran.
func (c *Collector) Demand(p int32, delta int) {
	if delta == 0 {
		return
	}
	pr := &c.projects[p]
	pr.demand += delta
	c.dirty = true
	if !pr.active {
		pr.active = true
		c.active = append(c.active, p)
	}
}

// Hold changes the slots a project holds.
func (c *Collector) Hold(p int32, delta int) {
	c.held += delta
	pr := &c.projects[p]
	pr.held += delta
	if !pr.active && pr.held > 0 {
		pr.active = true
		c.active = append(c.active, p)
		c.dirty = true
	}
}

// Queue changes the number of jobs with tasks waiting to start.
func (c *Collector) Queue(delta int) {
	c.queue += delta
}

// Submitted counts a job of project p.
func (c *Collector) Submitted(p int32) { c.projects[p].jobs++ }

// Job records a job's sample when it ends, or at the end of the run for a
// job still live.
func (c *Collector) Job(p int32, s Sample) {
	c.samples = append(c.samples, s)
	if s.Wait >= 0 {
		pr := &c.projects[p]
		pr.started++
		pr.waitSum += float64(s.Wait)
	}
}

// Preempted adds slot-seconds spent checkpointing after a preemption.
func (c *Collector) Preempted(slotSeconds int64) { c.lost += float64(slotSeconds) }

// BusySlotSeconds is the integral of held slots so far.
func (c *Collector) BusySlotSeconds() float64 { return c.busy }

// Summary is what a run's metrics come to.
type Summary struct {
	Wait     Dist
	Response Dist
	Slowdown Dist
	// AvgQueue is the time-average number of jobs waiting over the
	// makespan; MaxQueue the most waiting over any interval of time.
	AvgQueue float64
	MaxQueue int
	// PreemptionLostSlotHours is the slot time spent checkpointing.
	PreemptionLostSlotHours float64
	Jain                    float64
	Projects                []ProjectSummary
	// JainAccounts and Accounts are the accounts' fairness, when the
	// collector was given accounts (Accounts) and some had demand or held
	// slots; else 0 and nil.
	JainAccounts float64
	Accounts     []AccountSummary
	Series       *Series
}

// ProjectSummary is one project's share of a run.
type ProjectSummary struct {
	Name string `json:"name"`
	Jobs int    `json:"jobs"`
	// SlotHours were received; EntitledSlotHours are the integral of its
	// max-min fair share while it had demand.
	SlotHours         float64 `json:"slot_hours"`
	EntitledSlotHours float64 `json:"entitled_slot_hours"`
	// ShareRatio is SlotHours ÷ EntitledSlotHours: 1 means it got exactly
	// its fair share, less means it was short-changed.
	ShareRatio float64 `json:"share_ratio"`
	AvgWait    float64 `json:"avg_wait"`
}

// Summarize computes the summary of a run whose makespan is given, as of
// the last Advance. It may be called once.
func (c *Collector) Summarize(makespan int64) Summary {
	s := Summary{MaxQueue: c.maxQueue, PreemptionLostSlotHours: Round(c.lost/3600, 3)}
	if makespan > 0 {
		s.AvgQueue = Round(c.queueSec/float64(makespan), 3)
	}
	waits := make([]float64, 0, len(c.samples))
	var resp, slow []float64
	for _, x := range c.samples {
		if x.Wait >= 0 {
			waits = append(waits, float64(x.Wait))
		}
		if x.Response >= 0 {
			resp = append(resp, float64(x.Response))
			if x.Wait >= 0 {
				slow = append(slow, BoundedSlowdown(x.Response, x.Run))
			}
		}
	}
	s.Wait, s.Response, s.Slowdown = Summarize(waits), Summarize(resp), Summarize(slow)
	ratios := make([]float64, 0, len(c.projects))
	for i := range c.projects {
		p := &c.projects[i]
		ps := ProjectSummary{Name: p.name, Jobs: p.jobs,
			SlotHours: Round(p.heldSecs/3600, 3), EntitledSlotHours: Round(p.entSecs/3600, 3)}
		if p.entSecs > 0 {
			ps.ShareRatio = Round(p.heldSecs/p.entSecs, 4)
			ratios = append(ratios, p.heldSecs/p.entSecs)
		}
		if p.started > 0 {
			ps.AvgWait = Round(p.waitSum/float64(p.started), 3)
		}
		s.Projects = append(s.Projects, ps)
	}
	s.Jain = Round(Jain(ratios), 4)
	if accts, jain, ok := c.acc.summaries(c.last); ok {
		s.Accounts, s.JainAccounts = accts, jain
	}
	if c.series && c.begun {
		s.Series = c.seriesOut(waits)
	}
	return s
}

func (c *Collector) seriesOut(sortedWaits []float64) *Series {
	end := c.last
	out := &Series{
		Start:         c.b.start,
		Step:          c.b.step,
		Utilization:   c.b.means(c.b.busy, end, float64(c.slots)),
		Queue:         c.b.means(c.b.queue, end, 1),
		WaitQuantiles: Quantiles(sortedWaits, 200),
	}
	if out.WaitQuantiles == nil {
		out.WaitQuantiles = []float64{}
	}
	for i := range c.projects {
		p := &c.projects[i]
		out.Projects = append(out.Projects, ProjectSeries{
			Name:     p.name,
			Slots:    c.b.means(p.heldB, end, 1),
			Entitled: c.b.means(p.entB, end, 1),
		})
	}
	slices.SortStableFunc(out.Projects, func(a, b ProjectSeries) int { return cmpSum(b.Slots, a.Slots) })
	return out
}

// cmpSum orders series by their total, to list the biggest users first.
func cmpSum(a, b []float64) int {
	sa, sb := 0.0, 0.0
	for _, x := range a {
		sa += x
	}
	for _, x := range b {
		sb += x
	}
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}
