package store

import (
	"context"
	"testing"
	"time"
)

// TestAttemptsBeforeExitTime: migration 0018 adds the exit time of
// attempts (exited_ns); an attempt ended before it (no exited_ns) reads
// as exited when it ended, which its usage was charged until, in both
// dialects; the column refuses an exit after the end.
func TestAttemptsBeforeExitTime(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, _, job := backfillFixture(t, b.dsn(t), 18, "attempt_exited")
			start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			ended := start.Add(time.Hour)
			for _, w := range []struct {
				q    string
				args []any
			}{
				{`UPDATE tasks SET state = 'completed', attempt = 1 WHERE job_id = ? AND idx = 0`, []any{job.ID}},
				{`INSERT INTO attempts (job_id, idx, attempt, placement, started_ns, ended_ns, end_state)
					VALUES (?, 0, 1, '[]', ?, ?, 'completed')`, []any{job.ID, start.UnixNano(), ended.UnixNano()}},
			} {
				if _, err := s.w.ExecContext(ctx, s.d.q(w.q), w.args...); err != nil {
					t.Fatalf("%s: %v", w.q, err)
				}
			}
			atts, err := s.Attempts(ctx, AttemptFilter{JobID: job.ID})
			if err != nil || len(atts) != 1 || !atts[0].ExitedAt.Equal(ended) || !atts[0].EndedAt.Equal(ended) {
				t.Fatalf("attempts %+v (%v), want one ended and exited at %v", atts, err, ended)
			}
			exited := ended.Add(time.Second)
			if _, err := s.w.ExecContext(ctx, s.d.q(`UPDATE attempts SET exited_ns = ? WHERE job_id = ?`),
				exited.UnixNano(), job.ID); err == nil {
				t.Errorf("exited_ns %v of an attempt ended at %v: no error", exited, ended)
			}
		})
	}
}
