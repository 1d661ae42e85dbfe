package master

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// A search whose trials report another name than its searcher's metric
// (val_loss for loss, the classic slip) is no search: the searcher sees
// no value, stops no trial, and every trial trains to its end. Nothing
// is wrong with any one report, so nothing refuses them; this file says
// so where a researcher looks: allot experiment show (the metric names
// reported, and each such trial's DECISION note) and the trial's log,
// once per attempt as it ends (metricNameNote), as the agent says of
// skipped metrics lines.

// metricNoteSeq numbers the line the master adds to an attempt's log
// when its reports never carried the searcher's metric: below the
// agent's own note on skipped metrics lines (agentd's metricsNoteSeq,
// 1<<40 - 1), above every line of the process, so that it reads at the
// end of the attempt's output. Written when the attempt's exit is
// reported, after its output; a fixed number stores it once
// (AppendLogs keeps the first line of a number), however many parts or
// resent exit reports.
const metricNoteSeq = 1<<40 - 2

// reportedNames is every metric name of mets, sorted, and how many of
// mets carry metric.
func reportedNames(mets []store.Metric, metric string) (names []string, withMetric int) {
	seen := map[string]bool{}
	for _, met := range mets {
		if _, ok := met.Values[metric]; ok {
			withMetric++
		}
		for k := range met.Values {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	return names, withMetric
}

// trialNames is reportedNames by task index.
func trialNames(mets []store.Metric) map[int][]string {
	by := map[int][]store.Metric{}
	for _, met := range mets {
		by[met.Index] = append(by[met.Index], met)
	}
	out := make(map[int][]string, len(by))
	for i, ms := range by {
		out[i], _ = reportedNames(ms, "")
	}
	return out
}

// unjudgedNote is a trial's note when none of its reports carried the
// searcher's metric, so that the searcher never judged it: "never
// reported loss; it reported val_loss" once it ended, "no report of
// loss yet; it reports val_loss" while it runs; "" when it did report
// metric, or has not reported yet and has not ended completed (nothing
// is amiss before its first report).
func unjudgedNote(tm *api.TrialMetrics, metric string, names []string) string {
	if tm.MetricReports > 0 {
		return ""
	}
	ended := store.TaskState(tm.State).Terminal()
	switch {
	case tm.Reports > 0 && ended:
		return fmt.Sprintf("never reported %s; it reported %s", metric, strings.Join(names, ", "))
	case tm.Reports > 0:
		return fmt.Sprintf("no report of %s yet; it reports %s", metric, strings.Join(names, ", "))
	case tm.Decision == string(searcher.Done):
		return fmt.Sprintf("never reported %s; no metrics reports", metric)
	}
	return ""
}

// noteUnjudged adds unjudgedNote to each trial's DecisionNote, first.
func noteUnjudged(trials []api.TrialMetrics, metric string, mets []store.Metric) {
	names := trialNames(mets)
	for i := range trials {
		tm := &trials[i]
		n := unjudgedNote(tm, metric, names[tm.Task])
		switch {
		case n == "":
		case tm.DecisionNote == "":
			tm.DecisionNote = n
		default:
			tm.DecisionNote = n + "; " + tm.DecisionNote
		}
	}
}

// metricNameNote, as an attempt of an adaptive search's trial reports
// its exit, writes a line to the attempt's log when it reported metrics
// but none of the searcher's metric, naming those it did report, and
// logs it for the operator. An attempt that reported nothing gets no
// line: one that failed or was killed at once often has not; the
// experiment's view says it of one that completed (unjudgedNote).
// Callers hold mu.
func (ag agentTrials) metricNameNote(ctx context.Context, t *mtask, attempt int) error {
	s := t.job.search
	if s == nil {
		return nil
	}
	tx := ag.m.batches.w()
	mets, err := tx.Metrics(ctx, store.MetricFilter{JobID: t.job.rec.ID, Index: t.rec.Index})
	if err != nil {
		return err
	}
	mets = slices.DeleteFunc(mets, func(met store.Metric) bool { return met.Attempt != attempt })
	metric := s.Config().Metric
	names, with := reportedNames(mets, metric)
	if len(mets) == 0 || with > 0 {
		return nil
	}
	text := fmt.Sprintf("[allot master] %s of this attempt had %s but not %s, the searcher's metric, "+
		"so the searcher could not judge or stop this trial: write %s to ALLOT_METRICS_FILE, "+
		"or make the searcher's metric the name the trial reports",
		plural.Count(len(mets), "metrics report"), strings.Join(names, ", "), metric, metric)
	ag.m.log.Warn("a trial reported metrics, none of its searcher's metric", "task", t.id().String(),
		"metric", metric, "reported", strings.Join(names, ","))
	return tx.AppendLogs(ctx, []store.LogLine{{JobID: t.job.rec.ID, Index: t.rec.Index, Attempt: attempt,
		Seq: metricNoteSeq, Time: ag.m.now(), Stream: store.Stderr, Text: text}})
}
