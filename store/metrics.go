package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Metric is one report of a trial's validation metrics at a step.
type Metric struct {
	ID      int64 // assigned by AppendMetric; orders reports as received
	JobID   int64
	Index   int
	Attempt int
	Step    int64
	Time    time.Time // zero = now
	Values  map[string]float64
}

// MetricFilter selects a job's metric reports, by ascending ID.
type MetricFilter struct {
	JobID   int64
	Index   int   // only this task; -1 = every task
	AfterID int64 // reports with a greater ID
	Limit   int   // at most this many; 0 = no limit
}

// Bounds on one metric report, so that a trial cannot fill the database
// through its metrics file.
const (
	MaxMetricNames    = 64
	MaxMetricNameSize = 128
)

// ValidateMetricValues checks the names and values of one report: 1 to
// MaxMetricNames names of 1 to MaxMetricNameSize bytes without control
// characters, and finite numbers (JSON has no NaN or infinity).
func ValidateMetricValues(values map[string]float64) error {
	if len(values) == 0 || len(values) > MaxMetricNames {
		return fmt.Errorf("metrics: %d names, expected 1 to %d", len(values), MaxMetricNames)
	}
	for k, v := range values {
		if k == "" || len(k) > MaxMetricNameSize || strings.IndexFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			return fmt.Errorf("metrics: name %q: expected 1 to %d bytes without control characters", k, MaxMetricNameSize)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("metrics: %s is %v, expected a finite number", k, v)
		}
	}
	return nil
}

// AppendMetric stores one report unless its (job, task, step) is stored
// already, in which case it returns ok false and stores nothing: a
// re-sent report, or a step reported again after a resume from an older
// checkpoint, keeps the first value.
func (o *ops) AppendMetric(ctx context.Context, m Metric) (Metric, bool, error) {
	if err := o.flushAttempts(ctx); err != nil {
		return Metric{}, false, fmt.Errorf("append metric: %w", err)
	}
	switch {
	case m.Attempt < 1:
		return Metric{}, false, fmt.Errorf("append metric: %w", invalidf("task %d/%d step %d: attempt %d < 1", m.JobID, m.Index, m.Step, m.Attempt))
	case m.Step < 0:
		return Metric{}, false, fmt.Errorf("append metric: %w", invalidf("task %d/%d: step %d < 0", m.JobID, m.Index, m.Step))
	}
	if err := ValidateMetricValues(m.Values); err != nil {
		return Metric{}, false, fmt.Errorf("append metric: %w", invalidf("task %d/%d step %d: %v", m.JobID, m.Index, m.Step, err))
	}
	body, err := json.Marshal(m.Values)
	if err != nil {
		return Metric{}, false, fmt.Errorf("append metric: %w", err)
	}
	m.Time = nowIfZero(m.Time)
	err = o.q.QueryRowContext(ctx, o.d.q(`INSERT INTO metrics (job_id, idx, attempt, step, at_ns, metrics)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, idx, step) DO NOTHING RETURNING id`),
		m.JobID, m.Index, m.Attempt, m.Step, nsOf(m.Time), string(body)).Scan(&m.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Metric{}, false, nil
	case err != nil && constraintViolation(err):
		return Metric{}, false, fmt.Errorf("append metric: task %d/%d attempt %d does not exist: %w (%v)",
			m.JobID, m.Index, m.Attempt, ErrNotFound, err)
	case err != nil:
		return Metric{}, false, fmt.Errorf("append metric: %w", err)
	}
	return m, true, nil
}

func scanMetric(sc rowScanner) (Metric, error) {
	var m Metric
	var at int64
	var body string
	if err := sc.Scan(&m.ID, &m.JobID, &m.Index, &m.Attempt, &m.Step, &at, &body); err != nil {
		return Metric{}, err
	}
	m.Time = timeOf(at)
	if err := json.Unmarshal([]byte(body), &m.Values); err != nil {
		return Metric{}, fmt.Errorf("metric %d: %w: %v", m.ID, ErrCorrupt, err)
	}
	return m, nil
}

func (r reads) Metrics(ctx context.Context, f MetricFilter) ([]Metric, error) {
	where := []string{"job_id = ?", "id > ?"}
	args := []any{f.JobID, f.AfterID}
	if f.Index >= 0 {
		where, args = append(where, "idx = ?"), append(args, f.Index)
	}
	query, args := finish("SELECT id, job_id, idx, attempt, step, at_ns, metrics FROM metrics", where, "id", f.Limit, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("read metrics of job %d: %w", f.JobID, err)
	}
	ms, err := collect(rows, scanMetric)
	if err != nil {
		return nil, fmt.Errorf("read metrics of job %d: %w", f.JobID, err)
	}
	return ms, nil
}

func (s *sqlStore) AppendMetric(ctx context.Context, m Metric) (out Metric, ok bool, err error) {
	err = s.Update(ctx, func(tx Tx) error { out, ok, err = tx.AppendMetric(ctx, m); return err })
	return out, ok, err
}

func (s *sqlStore) Metrics(ctx context.Context, f MetricFilter) ([]Metric, error) {
	return s.reads.Metrics(ctx, f)
}
