package sim

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// TestStarveCounter: a job starves when it waited over the threshold, not
// when it waited exactly that long; one that never started counts with
// its wait so far and is counted apart; the longest wait names its job,
// the earliest submitted of equals, whatever order the jobs end in.
func TestStarveCounter(t *testing.T) {
	type add struct {
		name    string
		seq     int64
		wait    int64
		started bool
	}
	tests := []struct {
		name    string
		adds    []add
		jobs    int
		never   int
		longest *LongestWait
	}{
		{name: "no jobs"},
		{name: "under the threshold", adds: []add{{"a", 0, 99, true}}, longest: &LongestWait{"a", 99, true}},
		{name: "exactly at the threshold", adds: []add{{"a", 0, 100, true}}, longest: &LongestWait{"a", 100, true}},
		{name: "one second over", adds: []add{{"a", 0, 101, true}}, jobs: 1, longest: &LongestWait{"a", 101, true}},
		{name: "never started, over", adds: []add{{"a", 0, 10, true}, {"b", 1, 500, false}},
			jobs: 1, never: 1, longest: &LongestWait{"b", 500, false}},
		{name: "never started, exactly at", adds: []add{{"b", 1, 100, false}}, longest: &LongestWait{"b", 100, false}},
		{name: "never started, under", adds: []add{{"b", 1, 0, false}}, longest: &LongestWait{"b", 0, false}},
		{name: "started and not", adds: []add{{"a", 0, 300, true}, {"b", 1, 200, false}, {"c", 2, 150, true}},
			jobs: 3, never: 1, longest: &LongestWait{"a", 300, true}},
		{name: "a tie goes to the earlier submission, ended later", adds: []add{{"late", 5, 300, true}, {"early", 2, 300, false}},
			jobs: 2, never: 1, longest: &LongestWait{"early", 300, false}},
		{name: "a tie keeps the earlier submission, ended first", adds: []add{{"early", 2, 300, true}, {"late", 5, 300, true}},
			jobs: 2, longest: &LongestWait{"early", 300, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newStarveCounter(100)
			for _, a := range tt.adds {
				c.add(a.name, a.seq, a.wait, a.started)
			}
			st := c.st
			if st.After != 100 || st.Jobs != tt.jobs || st.NeverStarted != tt.never {
				t.Errorf("after %d, %d starved (%d never started); want 100, %d (%d)", st.After, st.Jobs, st.NeverStarted, tt.jobs, tt.never)
			}
			switch {
			case (st.Longest == nil) != (tt.longest == nil):
				t.Errorf("longest %+v, want %+v", st.Longest, tt.longest)
			case st.Longest != nil && *st.Longest != *tt.longest:
				t.Errorf("longest %+v, want %+v", *st.Longest, *tt.longest)
			}
		})
	}
}

// TestWaited: a job's wait runs to its first start; one that never
// started waited until it ended (killed in the queue) or, still queued,
// until the clock.
func TestWaited(t *testing.T) {
	tests := []struct {
		name    string
		lj      lifecycle.Job
		wait    int64
		started bool
	}{
		{"started", lifecycle.Job{Start: 40, End: -1, JobRecord: lifecycle.JobRecord{State: lifecycle.JobRunning}}, 30, true},
		{"started and ended", lifecycle.Job{Start: 40, End: 90, JobRecord: lifecycle.JobRecord{State: lifecycle.JobCompleted}}, 30, true},
		{"killed while queued", lifecycle.Job{Start: -1, End: 70, JobRecord: lifecycle.JobRecord{State: lifecycle.JobKilled}}, 60, false},
		{"still queued", lifecycle.Job{Start: -1, End: -1, JobRecord: lifecycle.JobRecord{State: lifecycle.JobQueued}}, 990, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{spec: JobSpec{Name: "j", Submit: 10}}
			wait, started := waited(j, &tt.lj, 1000)
			if wait != tt.wait || started != tt.started {
				t.Errorf("waited = %d, %v; want %d, %v", wait, started, tt.wait, tt.started)
			}
		})
	}
}
