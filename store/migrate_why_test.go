package store

import (
	"context"
	"testing"
	"time"
)

// TestEventWhyBackfill: migration 0021 reads the rule of a shrink for
// another job, and the job where 0019 did not keep it, off the reason of
// the resize events written before it, in both dialects; growth, moves
// and preemptions keep neither.
func TestEventWhyBackfill(t *testing.T) {
	events := []struct {
		name, reason string
		cause        Cause
		want         string
		forJob       int64
	}{
		{name: "a shrink for a job", reason: "resizing to 2 slots for job 16 (quota reclaim: project nlp is below its quota, project vision over it)",
			cause: CauseResized, want: "quota reclaim: project nlp is below its quota, project vision over it", forJob: 16},
		{name: "a shrink to one slot", reason: "resizing to 1 slot for job 7 (fair share: its owner is below its share (of the pool))",
			cause: CauseResized, want: "fair share: its owner is below its share (of the pool)", forJob: 7},
		{name: "growth", reason: "resizing to 4 slots", cause: CauseResized},
		{name: "a move", reason: "moving to make room for job 3 (x)", cause: CauseMoved},
		{name: "a preemption", reason: "preempted for job 3 (priority 10 runs before the preempted job's 40)", cause: CausePriority},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, m, job := backfillFixture(t, b.dsn(t), 21, "event_why")
			for i, e := range events {
				if _, err := s.w.ExecContext(ctx, s.d.q(`INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason, cause)
					VALUES (?, ?, 1, 'running', 'preempting', ?, ?, ?)`), job.ID, i, time.Now().UnixNano(), e.reason, string(e.cause)); err != nil {
					t.Fatal(err)
				}
			}
			runUpdates(t, s, m)
			evs, err := s.Events(ctx, EventFilter{JobID: job.ID, To: string(TaskPreempting)})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != len(events) {
				t.Fatalf("%d events, want %d", len(evs), len(events))
			}
			for i, e := range events {
				t.Run(e.name, func(t *testing.T) {
					if evs[i].Why != e.want || evs[i].ForJob != e.forJob {
						t.Errorf("%q: why %q for job %d, want %q for job %d", e.reason, evs[i].Why, evs[i].ForJob, e.want, e.forJob)
					}
				})
			}
		})
	}
}
