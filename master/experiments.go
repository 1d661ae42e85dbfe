package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// Experiments with an adaptive searcher (asha, adaptive_asha): trials
// report metrics through their agent (api.EventMetrics reports), the
// master stores each (task, step) once, in arrival order, and feeds the
// new ones to the job's searcher.Search, which may stop a trial: the trial
// is killed at once, freeing its GPUs, and ends completed with the
// searcher's reason. The Search is not stored: it is a pure function of
// the stored reports, so a restarted master replays them (restoreSearch).

// maxMetricPoints bounds the reports one GET /jobs/{id}/metrics returns.
const maxMetricPoints = 100_000

// searchOf makes a job's Search from its stored job file, nil when the
// job has no adaptive searcher; name is the searcher's name.
func searchOf(rec store.Job) (s *searcher.Search, name jobfile.SearcherName, err error) {
	if rec.Kind != store.KindExperiment || len(rec.Spec) == 0 {
		return nil, "", nil
	}
	spec, err := jobfile.ParseJSON("stored job file", rec.Spec)
	if err != nil {
		return nil, "", fmt.Errorf("job %d: %w", rec.ID, err)
	}
	if !spec.Searcher.Adaptive() {
		return nil, spec.Searcher.Name, nil
	}
	s, err = searcher.New(spec.Searcher.SearchConfig())
	return s, spec.Searcher.Name, err
}

// replay feeds stored reports to a fresh Search, in their stored order.
func replay(s *searcher.Search, mets []store.Metric) {
	name := s.Config().Metric
	for _, met := range mets {
		if v, ok := met.Values[name]; ok && met.Index < s.Trials() {
			s.Observe(met.Index, met.Step, v) // a bad value was refused when stored
		}
	}
}

// restoreSearch rebuilds a live job's Search from its stored reports and
// carries out its decisions that a previous master may not have: a
// stopped trial still running is killed, one being killed ends completed.
func (r *restorer) restoreSearch(ctx context.Context, j *mjob) error {
	m := r.m
	s, _, err := searchOf(j.rec)
	if err != nil || s == nil {
		return err
	}
	mets, err := m.st.Metrics(ctx, store.MetricFilter{JobID: j.rec.ID, Index: -1})
	if err != nil {
		return err
	}
	replay(s, mets)
	j.search = s
	for _, t := range j.tasks {
		if t.rec.Index >= s.Trials() || s.Trial(t.rec.Index).Decision != searcher.Stop {
			continue
		}
		if !j.rec.State.Terminal() && t.Stop.TrialStopped() {
			continue
		}
		if err := m.agents.trials.stopTrial(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// agentTrials is the agents' side's part for experiments' trials
// (agents.trials): their metrics and the searcher's stops.
type agentTrials struct{ *agents }

// recordMetric stores a metrics report of t's current attempt and, when
// it is new, shows it to the job's searcher. A report the agent should
// not have sent (it checks them) is logged and dropped, so that it cannot
// block the node's report stream.
func (ag agentTrials) recordMetric(ctx context.Context, t *mtask, r api.Report) error {
	if err := store.ValidateMetricValues(r.Metrics); err != nil || r.Step < 0 {
		ag.m.log.Warn("metrics report dropped", "task", t.id().String(), "step", r.Step, "err", err)
		return nil
	}
	met, ok, err := ag.m.batches.w().AppendMetric(ctx, store.Metric{JobID: t.job.rec.ID, Index: t.rec.Index,
		Attempt: t.rec.Attempt, Step: r.Step, Time: r.At, Values: r.Metrics})
	if err != nil || !ok {
		return err
	}
	// The searcher sees the metric once it is durable: within a batch,
	// after the commit (a stop it decides is then a write of its own), so
	// that a failed batch leaves the searcher as the store has it.
	ag.m.batches.later(func() {
		if err := ag.m.agents.trials.observeMetric(ctx, t, met); err != nil {
			ag.m.log.Error("stopping a trial", "task", t.id().String(), "err", err)
		}
	})
	return nil
}

// lateMetric stores a metrics report of an attempt that the master
// ended lost, failing its task, which its agent, back, sends late (ahead
// of the exit a late exit may amend the attempt by: lateexit.go), when
// the report was taken before the master ended the attempt: the trial
// reached that step. A live experiment's searcher sees it as any other
// (observeMetric: a trial completed with its last metric counts for the
// search; it has nothing to stop); an ended experiment's searcher decides
// nothing more, but `allot experiment show` replays the stored metric.
// Callers hold mu.
func (ag lateExits) lateMetric(ctx context.Context, n *mnode, r api.Report) error {
	if r.At.IsZero() || r.Step < 0 || store.ValidateMetricValues(r.Metrics) != nil {
		return nil
	}
	tx := ag.m.batches.w()
	lo, ok, err := ag.lostNamed(ctx, tx, n, r)
	if !ok || err != nil {
		return err
	}
	jid, a, t := lo.jid, lo.a, lo.t
	if t == nil {
		if ok, err := failedAt(ctx, tx, a); !ok || err != nil {
			return err
		}
	}
	met, ok, err := tx.AppendMetric(ctx, store.Metric{JobID: jid, Index: a.Index, Attempt: a.Number, Step: r.Step,
		Time: r.At, Values: r.Metrics})
	if err != nil || !ok || t == nil {
		return err
	}
	ag.m.batches.later(func() {
		if err := ag.m.agents.trials.observeMetric(ctx, t, met); err != nil {
			ag.m.log.Error("stopping a trial", "task", t.id().String(), "err", err)
		}
	})
	return nil
}

// observeMetric shows a stored metric to the job's searcher and stops the
// trial when the searcher says so.
func (ag agentTrials) observeMetric(ctx context.Context, t *mtask, met store.Metric) error {
	s := t.job.search
	if s == nil || t.rec.Index >= s.Trials() {
		return nil
	}
	v, ok := met.Values[s.Config().Metric]
	if !ok {
		return nil
	}
	before := s.Trial(t.rec.Index).Decision
	d, err := s.Observe(t.rec.Index, met.Step, v)
	if err != nil || before != searcher.Continue || d != searcher.Stop {
		return nil
	}
	return ag.stopTrial(ctx, t)
}

// stopTrial ends a trial that the searcher stopped: killed (SIGTERM, and
// SIGKILL after its pool's kill_grace) when it holds an attempt, ended at
// once when it waits in the queue. Either
// way it ends completed: stopping early is the search working, not a
// failure of the trial or a kill by a user. An attempt whose agent then
// reports it exited completed on its own, before the kill reached it,
// ends completed too, not killed (lifecycle.Ending.Decide); reports that
// come with the exit in one sync are seen after it (recordMetric), when
// there is nothing left to stop. Nor is a kill asked for an attempt whose
// agents said it had exited, its exit report held back (exitHeld): its
// reports came late, through a store outage say, and it ends as it
// exited when that report comes (trial r R3).
func (ag agentTrials) stopTrial(ctx context.Context, t *mtask) error {
	reason := t.job.search.Reason(t.rec.Index)
	switch {
	case t.att != nil && ag.exitHeld(t):
		ag.m.log.Info("the searcher's stop is not carried out: the trial has already exited, its exit report is on the way",
			"task", t.id().String(), "searcher", reason)
		return nil
	case t.att != nil:
		return ag.m.killTask(ctx, t, store.TaskCompleted, reason, "")
	case t.rec.State == store.TaskQueued:
		rec, err := ag.m.batches.w().TransitionTask(ctx, store.TaskTransition{JobID: t.job.rec.ID, Index: t.rec.Index,
			From: store.TaskQueued, To: store.TaskCompleted, At: ag.m.now(), Reason: reason})
		if err != nil {
			return err
		}
		ag.m.setTask(t, rec)
		ag.m.kick()
		return ag.m.settleJob(ctx, t.job, ag.m.now())
	}
	return nil
}

// exitHeld reports whether every part of t's attempt has exited, by its
// exit report or by its agent's word that the report is held back
// (api.Sync.Exited). Callers hold mu.
func (ag agentTrials) exitHeld(t *mtask) bool {
	for _, p := range t.att.parts {
		if p.state == partExited {
			continue
		}
		if n := ag.m.nodes[p.node]; n == nil || !n.exitsHeld[t.id()] {
			return false
		}
	}
	return true
}

// exitsHeld is the set of a sync's attempts whose exit reports are held
// back (api.Sync.Exited), nil for none.
func exitsHeld(ids []agent.TaskID) map[agent.TaskID]bool {
	var out map[agent.TaskID]bool
	for _, id := range ids {
		if out == nil {
			out = map[agent.TaskID]bool{}
		}
		out[id] = true
	}
	return out
}

// jobMetrics serves a job's metrics and its searcher's standing (GET
// /jobs/{id}/metrics), from the store alone: a part of jobsAPI (metrics),
// not embedded, so that its methods are not jobsAPI's.
type jobMetrics struct {
	server
}

func (jm jobMetrics) handleJobMetrics(w http.ResponseWriter, r *http.Request) {
	id, ok := jm.m.access.readableJob(w, r)
	if !ok {
		return
	}
	out, err := jm.read(r.Context(), id)
	if err != nil {
		jm.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// read builds a job's metrics view from the store alone; the
// searcher's standing comes from a replay, the same as the live one's.
func (jm jobMetrics) read(ctx context.Context, id int64) (api.JobMetrics, error) {
	rec, err := jm.m.st.Job(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.JobMetrics{}, &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("job %d does not exist", id)}
	}
	if err != nil {
		return api.JobMetrics{}, err
	}
	tasks, err := jm.m.st.Tasks(ctx, store.TaskFilter{JobID: id})
	if err != nil {
		return api.JobMetrics{}, err
	}
	mets, err := jm.m.st.Metrics(ctx, store.MetricFilter{JobID: id, Index: -1, Limit: maxMetricPoints})
	if err != nil {
		return api.JobMetrics{}, err
	}
	atts, err := jm.m.st.Attempts(ctx, store.AttemptFilter{JobID: id})
	if err != nil {
		return api.JobMetrics{}, err
	}
	s, name, err := searchOf(rec)
	if err != nil {
		jm.m.log.Warn("job file unreadable; metrics without the searcher's standing", "job", id, "err", err)
	}
	out := api.JobMetrics{JobID: id, SmallerIsBetter: true, Searcher: string(name), Points: make([]api.MetricPoint, 0, len(mets))}
	var joins map[int][]api.RungJoin
	if s != nil {
		joins = replayJoins(s, mets)
		out.Metric, out.SmallerIsBetter = s.Config().Metric, s.Config().SmallerIsBetter
		for b := range s.Config().Brackets {
			out.Rungs = append(out.Rungs, s.Rungs(b))
		}
	}
	for _, met := range mets {
		out.Points = append(out.Points, api.MetricPoint{Task: met.Index, Attempt: met.Attempt, Step: met.Step,
			Time: met.Time, Metrics: met.Values})
		if out.Metric == "" {
			out.Metric = firstName(met.Values)
		}
	}
	out.Trials = trialSummaries(tasks, mets, out.Metric, out.SmallerIsBetter, s)
	out.ReportedMetrics, out.MetricReports = reportedNames(mets, out.Metric) // experiment_metric.go
	if s != nil {
		ends := lastEnds(atts)
		for i := range out.Trials {
			tm := &out.Trials[i]
			said := searcher.Decision(tm.Decision)
			tm.Decision = shownDecision(store.TaskState(tm.State), ends[tm.Task], said)
			tm.RungJoins = joins[tm.Task]
			tm.DecisionNote = decisionNote(tm, said, s.Config().Divisor, jm.lateCause(ctx)) // experiment_late.go
		}
		noteUnjudged(out.Trials, out.Metric, mets)
	}
	return out, nil
}

// lastEnds maps each task index to how its last attempt ended ("" while
// it runs).
func lastEnds(atts []store.Attempt) map[int]store.AttemptState {
	out := map[int]store.AttemptState{}
	last := map[int]int{}
	for _, a := range atts {
		if a.Number > last[a.Index] {
			last[a.Index], out[a.Index] = a.Number, a.EndState
		}
	}
	return out
}

// shownDecision is a trial's DECISION: the searcher's (d), but for a
// trial that ended otherwise than the searcher says. One that failed or
// was killed shows failed or killed, not the continue it stopped at; one
// whose attempt completed on its own shows done, though its last
// reports, heard with or after its exit, had the searcher stop it at a
// rung: nothing was stopped (lifecycle.Ending.Decide ends such an
// attempt completed).
func shownDecision(state store.TaskState, lastEnd store.AttemptState, d searcher.Decision) string {
	switch {
	case state == store.TaskFailed, state == store.TaskKilled:
		return string(state)
	case state == store.TaskCompleted && lastEnd == store.AttemptCompleted:
		return string(searcher.Done)
	}
	return string(d)
}

// firstName is the first metric name in byte order.
func firstName(values map[string]float64) string {
	var names []string
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	return names[0]
}

// trialSummaries gives each task its latest and best value of metric,
// and the searcher's standing when there is one.
func trialSummaries(tasks []store.Task, mets []store.Metric, metric string, smaller bool, s *searcher.Search) []api.TrialMetrics {
	out := make([]api.TrialMetrics, len(tasks))
	for i, t := range tasks {
		out[i] = api.TrialMetrics{Task: t.Index, State: string(t.State), Hyperparameters: t.Hyperparameters}
		if s != nil && t.Index < s.Trials() {
			st := s.Trial(t.Index)
			b, r := st.Bracket, st.Rung
			out[i].Bracket, out[i].Rung, out[i].Decision = &b, &r, string(st.Decision)
		}
	}
	for _, met := range mets {
		if met.Index < 0 || met.Index >= len(out) || out[met.Index].Task != met.Index {
			continue
		}
		tm := &out[met.Index]
		tm.Reports++
		v, ok := met.Values[metric]
		if !ok {
			continue
		}
		tm.MetricReports++
		step := met.Step
		if tm.LatestStep == nil || step >= *tm.LatestStep {
			tm.LatestStep, tm.Latest = &step, &v
		}
		if tm.Best == nil || (smaller && v < *tm.Best) || (!smaller && v > *tm.Best) {
			tm.BestStep, tm.Best = &step, &v
		}
	}
	return out
}

// cappedMessage is the pending message of experiment rec (snapshot
// entry e) that runs as many trials as it may, naming the job file's
// field that caps them (max_concurrent_trials, or max_slots: capOf),
// not the core's max_concurrent, which only a scenario spells so; ""
// for any other job, which keeps the core's message.
func cappedMessage(e *sched.Job, rec *store.Job) string {
	if rec.Kind != store.KindExperiment {
		return ""
	}
	field, _, _ := capOf(e, rec)
	return "already running as many trials as " + field + " allows"
}
