package sim

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/searcher"
)

// Experiments with an adaptive searcher (JobSpec.Search). The job's tasks
// are its trials: task i, numbered in the order tasks first start, is
// trial i, as on the master, where trials start in index order. A trial
// trains MaxLength steps of StepTime each and reports its curve's points
// as its training reaches their steps; each report goes to the job's
// searcher.Search, the one the master drives, in the order the reports
// happen. A report that stops the trial ends it at once as the master's
// stopTrial does, its attempt killed (FAILED_CANCELED) and the trial
// completed (stopTask), and frees its slots for the next pass. A preempted trial resumes from its
// checkpoint and reports only steps past the last one it reported, as the
// master keeps the first report of each step. Reports come before task
// ends at the same instant, so the report at max_length is judged before
// the trial ends.

// SearchSpec drives an experiment with an adaptive searcher.
type SearchSpec struct {
	// Name is the searcher's name for results: asha or adaptive_asha.
	Name   string
	Config searcher.Config
	// StepTime is the run time of one step (at full size, for an elastic
	// job): the job's Duration is Config.MaxLength × StepTime.
	StepTime int64
	// Curves are the trials' metric reports, one curve per trial by
	// index, steps rising within 0..MaxLength.
	Curves [][]MetricPoint
}

// MetricPoint is one metric report: the value at a step.
type MetricPoint struct {
	Step  int64
	Value float64
}

// SearchResult is an experiment's search: its searcher and what it
// decided for each trial.
type SearchResult struct {
	Searcher        string  `json:"searcher"`
	Metric          string  `json:"metric"`
	SmallerIsBetter bool    `json:"smaller_is_better"`
	Divisor         float64 `json:"divisor"`
	// Rungs are each bracket's rung lengths, in steps.
	Rungs  [][]int64     `json:"rungs"`
	Trials []TrialResult `json:"trials"`
}

// TrialResult is one trial's course through its bracket's rungs.
type TrialResult struct {
	Trial   int `json:"trial"`
	Bracket int `json:"bracket"`
	// Decision is the searcher's last word: continue (still training, or
	// never judged), stopped (stopped early) or done (reached the top
	// rung); or failed (TrialFailed) for a trial its scenario's fails
	// ended before the searcher's last word.
	Decision searcher.Decision `json:"decision"`
	// Reason says why a stopped trial stopped, as the master's task
	// reason does.
	Reason string `json:"reason,omitempty"`
	// Rungs lists each rung the trial joined, in order.
	Rungs []RungResult `json:"rungs,omitempty"`
}

// RungResult is a trial joining a rung: the report that reached it and
// what the searcher decided.
type RungResult struct {
	Rung  int     `json:"rung"`
	Step  int64   `json:"step"` // the report's step, at or past the rung's length
	At    int64   `json:"at"`   // simulated time of the report
	Value float64 `json:"value"`
	// RungTrials is how many values the rung held once this one joined,
	// itself included: the trial went on only if it ranked in the top
	// max(1, RungTrials/divisor) of them.
	RungTrials int `json:"rung_trials"`
	// Decision is promoted (trains on to the next rung), stopped or done.
	Decision string `json:"decision"`
}

// Rung decisions in results.
const (
	RungPromoted = searcher.Promoted
	RungStopped  = string(searcher.Stop)
	RungDone     = string(searcher.Done)
)

// TrialFailed is the decision of a trial that failed (a scenario's
// fails) while the searcher still had it continue. It is the simulator's
// word, not the searcher's: the searcher never fails a trial.
const TrialFailed searcher.Decision = "failed"

// failed notes that trial i failed while the searcher had it continue.
func (js *jobSearch) failed(i int) {
	if js.trials != nil && js.trials[i].Decision == searcher.Continue {
		js.trials[i].Decision = TrialFailed
	}
}

// jobSearch is a running experiment's search.
type jobSearch struct {
	s *searcher.Search
	// next is, per trial, its first point not reported yet.
	next []int32
	// joined counts, per bracket and rung, the values the rung holds.
	joined [][]int
	// trials are the results, nil when per-job results are omitted.
	trials []TrialResult
}

// checkSearch checks an experiment's search: a valid configuration, one
// trial per task, a duration of MaxLength steps, and curves whose steps
// rise within 0..MaxLength and whose values are finite.
func checkSearch(spec *JobSpec) error {
	ss := spec.Search
	cfg := ss.Config
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("job %q: searcher: %w", spec.Name, err)
	}
	switch {
	case spec.Tasks != cfg.MaxTrials || len(ss.Curves) != cfg.MaxTrials:
		return fmt.Errorf("job %q: %d tasks and %d curves, want one of each per trial (%d)", spec.Name, spec.Tasks, len(ss.Curves), cfg.MaxTrials)
	case ss.StepTime <= 0 || ss.StepTime > math.MaxInt64/cfg.MaxLength || spec.Duration != cfg.MaxLength*ss.StepTime:
		return fmt.Errorf("job %q: duration %d s, want max_length %d × step_time %d s", spec.Name, spec.Duration, cfg.MaxLength, ss.StepTime)
	}
	for i, c := range ss.Curves {
		for k, p := range c {
			if p.Step < 0 || p.Step > cfg.MaxLength || (k > 0 && p.Step <= c[k-1].Step) || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
				return fmt.Errorf("job %q: trial %d point %d (step %d, %v): steps must rise within 0..%d and values be finite",
					spec.Name, i, k, p.Step, p.Value, cfg.MaxLength)
			}
		}
	}
	return nil
}

// newJobSearch starts an experiment's search; checkSearch has checked
// its configuration.
func newJobSearch(spec *SearchSpec, record bool) *jobSearch {
	s, err := searcher.New(spec.Config)
	if err != nil {
		panic(fmt.Sprintf("sim: searcher configuration passed checkSearch but: %v", err))
	}
	js := &jobSearch{s: s, next: make([]int32, s.Trials())}
	for b := range spec.Config.Brackets {
		js.joined = append(js.joined, make([]int, len(s.Rungs(b))))
	}
	if record {
		js.trials = make([]TrialResult, s.Trials())
		for i := range js.trials {
			js.trials[i] = TrialResult{Trial: i, Bracket: s.Trial(i).Bracket, Decision: searcher.Continue}
		}
	}
	return js
}

// scheduleReport queues running trial ti's next report: when its
// training reaches the step of its next point. Called whenever the trial
// (re)starts, as its progress and rate may have changed.
func (s *world) scheduleReport(ti int32) {
	t := s.c.Tasks.At(ti)
	j := &s.jobs[t.Job]
	js := j.search
	if js == nil {
		return
	}
	curve := j.spec.Search.Curves[t.ID]
	k := js.next[t.ID]
	if int(k) >= len(curve) {
		return
	}
	perStep := freshWork(&j.spec) / j.spec.Search.Config.MaxLength
	done := freshWork(&j.spec) - t.Work
	r := s.rate(t)
	left := max(curve[k].Step*perStep-done, 0)
	s.q.push(event{at: t.From + (left+r-1)/r, kind: evReport, ref: ti, ver: t.Ver})
}

// report hands running trial ti's next point to the searcher, records
// the rungs it joined, and stops the trial at once if the searcher says
// so; otherwise it queues the trial's next report.
func (s *sim) report(ti int32) {
	t := s.c.Tasks.At(ti)
	ji := t.Job
	j := &s.jobs[ji]
	js, i := j.search, int(t.ID)
	p := j.spec.Search.Curves[i][js.next[i]]
	js.next[i]++
	before := js.s.Trial(i)
	// checkSearch has checked the index and that values are finite, the
	// searcher's only errors.
	d, _ := js.s.Observe(i, p.Step, p.Value)
	js.record(i, before, js.s.Trial(i), p, s.now)
	if before.Decision != searcher.Continue || d != searcher.Stop {
		s.scheduleReport(ti)
		return
	}
	if js.trials != nil {
		js.trials[i].Reason = js.s.Reason(i)
	}
	// A report is stale once the trial is asked to stop, so it runs.
	s.ends.stopTask(ti, t.Ver)
}

// record notes the rungs trial i joined with report p: every rung from
// before's to after's, each promoted but the last when the trial stopped
// or is done there.
func (js *jobSearch) record(i int, before, after searcher.Trial, p MetricPoint, now int64) {
	for k := before.Rung; k < after.Rung; k++ {
		js.joined[after.Bracket][k]++
		if js.trials == nil {
			continue
		}
		d := RungPromoted
		if k == after.Rung-1 && after.Decision != searcher.Continue {
			d = string(after.Decision)
		}
		tr := &js.trials[i]
		tr.Decision = after.Decision
		tr.Rungs = append(tr.Rungs, RungResult{Rung: k, Step: p.Step, At: now, Value: p.Value,
			RungTrials: js.joined[after.Bracket][k], Decision: d})
	}
}

// result is the search's part of its job's result.
func (js *jobSearch) result(spec *SearchSpec) *SearchResult {
	cfg := js.s.Config()
	r := &SearchResult{Searcher: spec.Name, Metric: cfg.Metric, SmallerIsBetter: cfg.SmallerIsBetter,
		Divisor: cfg.Divisor, Trials: js.trials}
	for b := range cfg.Brackets {
		r.Rungs = append(r.Rungs, js.s.Rungs(b))
	}
	return r
}

// writeSearch prints an experiment's search for people: per bracket and
// rung, how many trials joined it, how many went on, and which stopped
// there or were done.
func writeSearch(w io.Writer, job string, r *SearchResult) {
	order := "larger"
	if r.SmallerIsBetter {
		order = "smaller"
	}
	fmt.Fprintf(w, "experiment %s: %s on %s (%s is better), divisor %s, %s\n", job, r.Searcher, r.Metric, order,
		strconv.FormatFloat(r.Divisor, 'g', -1, 64), plural.Count(len(r.Trials), "trial"))
	trials := make([]searcher.TrialRungs, len(r.Trials))
	for i, t := range r.Trials {
		trials[i] = searcher.TrialRungs{Trial: t.Trial, Bracket: t.Bracket}
		for _, rr := range t.Rungs {
			trials[i].Decisions = append(trials[i].Decisions, rr.Decision)
		}
	}
	searcher.WriteRungs(w, "  ", r.Rungs, trials)
	open := 0
	var failed []int
	for _, t := range r.Trials {
		switch t.Decision {
		case searcher.Continue:
			open++
		case TrialFailed:
			failed = append(failed, t.Trial)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "  %s (%s)\n", plural.Count(len(failed), "trial")+" failed", searcher.TrialList(failed))
	}
	if open > 0 {
		fmt.Fprintf(w, "  %s not judged to the end: still training, never started, or no report at a rung\n",
			plural.Count(open, "trial"))
	}
}
