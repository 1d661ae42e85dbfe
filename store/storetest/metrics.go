package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/allot-sched/allot/store"
)

// testMetrics checks that metric reports are stored once per step, in the
// order received, and listed by job and task.
func testMetrics(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("tuner"), 2)
	for idx := range 2 {
		move(t, s, store.TaskTransition{JobID: job.ID, Index: idx, From: store.TaskQueued, To: store.TaskStarting,
			Placement: placement("n1", idx)})
	}
	ids := appendMetrics(t, ctx, s, job.ID)
	rejectMetrics(t, ctx, s, job.ID)
	listMetrics(t, ctx, s, job.ID, ids)
}

// appendMetrics stores three reports and a repeated step of job's tasks
// 0 and 1, and returns the ids of those stored, in order.
func appendMetrics(t *testing.T, ctx context.Context, s store.Store, jobID int64) []int64 {
	m := func(idx int, step int64, loss float64) store.Metric {
		return store.Metric{JobID: jobID, Index: idx, Attempt: 1, Step: step, Time: at(0),
			Values: map[string]float64{"loss": loss}}
	}
	appends := []struct {
		name   string
		metric store.Metric
		stored bool
	}{
		{"first", m(0, 10, 0.9), true},
		{"other task", m(1, 10, 0.8), true},
		{"next step", m(0, 20, 0.5), true},
		{"same step again keeps the first", m(0, 10, 0.1), false},
	}
	var ids []int64
	for _, c := range appends {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := s.AppendMetric(ctx, c.metric)
			if err != nil {
				t.Fatalf("append metric: %v", err)
			}
			if ok != c.stored {
				t.Fatalf("stored = %v, want %v", ok, c.stored)
			}
			if ok {
				if len(ids) > 0 && got.ID <= ids[len(ids)-1] {
					t.Errorf("id %d after %d: ids must increase", got.ID, ids[len(ids)-1])
				}
				ids = append(ids, got.ID)
			}
		})
	}
	return ids
}

// rejectMetrics checks the reports that the store refuses.
func rejectMetrics(t *testing.T, ctx context.Context, s store.Store, jobID int64) {
	rejects := []struct {
		name   string
		metric store.Metric
		want   error
	}{
		{"no attempt", store.Metric{JobID: jobID, Index: 0, Attempt: 5, Step: 1, Values: map[string]float64{"x": 1}}, store.ErrNotFound},
		{"negative step", store.Metric{JobID: jobID, Attempt: 1, Step: -1, Values: map[string]float64{"x": 1}}, store.ErrInvalid},
		{"no values", store.Metric{JobID: jobID, Attempt: 1, Step: 3}, store.ErrInvalid},
		{"attempt 0", store.Metric{JobID: jobID, Step: 3, Values: map[string]float64{"x": 1}}, store.ErrInvalid},
	}
	for _, c := range rejects {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := s.AppendMetric(ctx, c.metric); !errors.Is(err, c.want) {
				t.Fatalf("append metric: %v, want %v", err, c.want)
			}
		})
	}
}

// listMetrics checks the listing of what appendMetrics stored; ids are
// the stored reports' ids.
func listMetrics(t *testing.T, ctx context.Context, s store.Store, jobID int64, ids []int64) {
	lists := []struct {
		name  string
		f     store.MetricFilter
		steps []int64
		loss  []float64
	}{
		{"all", store.MetricFilter{JobID: jobID, Index: -1}, []int64{10, 10, 20}, []float64{0.9, 0.8, 0.5}},
		{"one task", store.MetricFilter{JobID: jobID, Index: 0}, []int64{10, 20}, []float64{0.9, 0.5}},
		{"after", store.MetricFilter{JobID: jobID, Index: -1, AfterID: ids[0], Limit: 1}, []int64{10}, []float64{0.8}},
		{"other job", store.MetricFilter{JobID: jobID + 1, Index: -1}, nil, nil},
	}
	for _, c := range lists {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Metrics(ctx, c.f)
			if err != nil {
				t.Fatalf("metrics: %v", err)
			}
			var steps []int64
			var loss []float64
			for _, x := range got {
				steps, loss = append(steps, x.Step), append(loss, x.Values["loss"])
			}
			wantEqual(t, "steps", steps, c.steps)
			wantEqual(t, "loss", loss, c.loss)
		})
	}
}
