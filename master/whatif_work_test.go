package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestKilledByLimit: a job whose last attempt ran into its time limit is
// not exported with a kill event, even when the attempt's end and the
// job's were stamped a moment apart, as on a real clock; a kill well
// before the limit, or long after the attempt ended, is a user's kill.
func TestKilledByLimit(t *testing.T) {
	start := time.Date(2026, 11, 26, 10, 55, 16, 0, time.UTC)
	ended := start.Add(5*time.Second + 868642381*time.Nanosecond)
	tests := []struct {
		name     string
		limit    time.Duration
		attEnd   time.Time
		jobEnd   time.Time
		byLimit  bool
		endState store.AttemptState
	}{
		{"same instant", 5 * time.Second, ended, ended, true, store.AttemptKilled},
		{"job stamped a moment later", 5 * time.Second, ended, ended.Add(358294 * time.Nanosecond), true, store.AttemptKilled},
		{"killed before its limit", time.Hour, ended, ended, false, store.AttemptKilled},
		{"job ended long after", 5 * time.Second, ended, ended.Add(10 * time.Second), false, store.AttemptKilled},
		{"the attempt completed", 5 * time.Second, ended, ended, false, store.AttemptCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := store.Job{ID: 9, TimeLimit: tt.limit, EndedAt: tt.jobEnd}
			atts := []store.Attempt{{JobID: 9, Index: 0, Number: 1, StartedAt: start, EndedAt: tt.attEnd, EndState: tt.endState}}
			if got := killedByLimit(j, atts, &historyEvents{}); got != tt.byLimit {
				t.Errorf("killedByLimit = %v, want %v", got, tt.byLimit)
			}
		})
	}
}
