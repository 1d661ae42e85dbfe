package api

import (
	"encoding/json"
	"time"
)

// MetricPoint is one metric report of a trial.
type MetricPoint struct {
	Task    int                `json:"task"`
	Attempt int                `json:"attempt"`
	Step    int64              `json:"step"`
	Time    time.Time          `json:"time"`
	Metrics map[string]float64 `json:"metrics"`
}

// JobMetrics answers GET /jobs/{id}/metrics: every report of the job's
// trials in the order the master received them, and a summary per trial.
type JobMetrics struct {
	JobID int64 `json:"job_id"`
	// Metric is the searcher's metric, when it has one (asha,
	// adaptive_asha); else the first name reported. SmallerIsBetter says
	// which way is best.
	Metric          string `json:"metric,omitempty"`
	SmallerIsBetter bool   `json:"smaller_is_better"`
	Searcher        string `json:"searcher,omitempty"`
	// Rungs are each bracket's rung lengths in steps, for asha and
	// adaptive_asha: with the trials' RungJoins, the per-rung summary
	// that allot experiment show and allot sim print.
	Rungs [][]int64 `json:"rungs,omitempty"`
	// ReportedMetrics are the names the reports carry, sorted; with
	// MetricReports, how many of the reports carry Metric, they tell a
	// search whose trials report another name than its searcher's
	// metric (val_loss for loss), which then judges no trial.
	ReportedMetrics []string       `json:"reported_metrics,omitempty"`
	MetricReports   int            `json:"metric_reports"`
	Trials          []TrialMetrics `json:"trials"`
	Points          []MetricPoint  `json:"points"`
}

// TrialMetrics summarises one trial's reports of Metric.
type TrialMetrics struct {
	Task            int             `json:"task"`
	State           string          `json:"state"`
	Hyperparameters json.RawMessage `json:"hyperparameters,omitempty"`
	Reports         int             `json:"reports"`
	// MetricReports is how many of Reports carry Metric; for an adaptive
	// searcher, a trial with none was never judged by it (DecisionNote
	// then says so: "never reported loss; it reported val_loss").
	MetricReports int `json:"metric_reports"`
	// LatestStep and Latest are the last report of Metric by step; BestStep
	// and Best the best one. Absent before the first report.
	LatestStep *int64   `json:"latest_step,omitempty"`
	Latest     *float64 `json:"latest,omitempty"`
	BestStep   *int64   `json:"best_step,omitempty"`
	Best       *float64 `json:"best,omitempty"`
	// Bracket, Rung and Decision are the ASHA searcher's: the trial's
	// bracket, the highest rung it reached, and continue, stopped or done
	// (done too for a trial that completed on its own; failed or killed
	// for one that ended so).
	Bracket  *int   `json:"bracket,omitempty"`
	Rung     *int   `json:"rung,omitempty"`
	Decision string `json:"decision,omitempty"`
	// DecisionNote says what the decision alone does not: that the trial
	// went on at some rungs only as the first to arrive there ("promoted
	// at rungs 0-2 as the first to arrive"), or that it had exited on its
	// own before the searcher, hearing its reports late, stopped it (the
	// store outage that held them back named, where one was recorded);
	// for a trial stopped, why ("at rung 1, not in the top 1/3").
	DecisionNote string `json:"decision_note,omitempty"`
	// RungJoins are the rungs the trial joined, in order: the report
	// that reached each and the searcher's decision there.
	RungJoins []RungJoin `json:"rung_joins,omitempty"`
}

// RungJoin is a trial joining an ASHA rung.
type RungJoin struct {
	Rung int   `json:"rung"`
	Step int64 `json:"step"` // the report's step, at or past the rung's length
	// Time is when the trial's agent read the report.
	Time  time.Time `json:"time"`
	Value float64   `json:"value"`
	// RungTrials is how many values the rung held once this one joined,
	// itself included (1: the first to arrive, which always goes on).
	RungTrials int `json:"rung_trials"`
	// Decision is promoted, stopped or done.
	Decision string `json:"decision"`
}
