package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestHistoryElapsedRunsToTheExit: a job's elapsed time in the history
// is its attempts' runs, each to its exit, as its GPU-hours are, not to
// when the master heard of the end (later, when it was down).
func TestHistoryElapsedRunsToTheExit(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	now := at(1000)
	for _, c := range []struct {
		name  string
		ended int // the job's end, 0: not ended
		atts  []store.Attempt
		want  int64
	}{
		{"ended while the master was down", 56, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(56), ExitedAt: at(20)}}, 20},
		{"ended before migration 0018: no exit time", 56, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(56)}}, 56},
		{"the last of several attempts", 300, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(60), ExitedAt: at(50)},
			{Number: 2, StartedAt: at(100), EndedAt: at(300), ExitedAt: at(250)}}, 50 + 150},
		{"a gang's parts: the last exit", 90, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(90), ExitedAt: at(40)},
			{Index: 1, StartedAt: at(0), EndedAt: at(90), ExitedAt: at(45)}}, 45},
		{"running: to now", 0, []store.Attempt{{StartedAt: at(0)}}, 1000},
		{"killed, its silent agent ending it later", 30, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(35), ExitedAt: at(35)}}, 35},
		{"killed, still being killed: to now", 30, []store.Attempt{
			{StartedAt: at(0), EndedAt: at(20), ExitedAt: at(20)},
			{Index: 1, StartedAt: at(0)}}, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := store.Job{ID: 1, SubmittedAt: t0, State: store.JobRunning}
			if c.ended != 0 {
				j.State, j.EndedAt = store.JobCompleted, at(c.ended)
			}
			if got := historyOf(j, c.atts, 0, now).ElapsedS; got != c.want {
				t.Errorf("elapsed %ds, want %ds", got, c.want)
			}
		})
	}
}

// TestHistoryWaitAndElapsedOfARequeuedJob: a preempted and requeued job's
// ELAPSED counts its runs only, not the time it is queued again, and its
// WAIT every wait: to its first start, between runs and since its last
// (trial m F5), as sacct's figures read.
func TestHistoryWaitAndElapsedOfARequeuedJob(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	now := at(1000)
	preempted := store.Attempt{StartedAt: at(10), EndedAt: at(60), ExitedAt: at(60), EndState: store.AttemptPreempted}
	for _, c := range []struct {
		name          string
		state         store.JobState
		ended         int
		atts          []store.Attempt
		wait, elapsed int64
	}{
		{"first attempt running", store.JobRunning, 0, []store.Attempt{{StartedAt: at(10)}}, 10, 990},
		{"queued again after a preemption", store.JobQueued, 0, []store.Attempt{preempted}, 10 + 940, 50},
		{"ran again and completed", store.JobCompleted, 300, []store.Attempt{preempted,
			{Number: 2, StartedAt: at(100), EndedAt: at(300), ExitedAt: at(300), EndState: store.AttemptCompleted}}, 10 + 40, 50 + 200},
		{"running again", store.JobRunning, 0, []store.Attempt{preempted, {Number: 2, StartedAt: at(100)}}, 10 + 40, 50 + 900},
		{"killed while queued again", store.JobKilled, 500, []store.Attempt{preempted}, 10 + 440, 50},
		{"killed running", store.JobKilled, 60, []store.Attempt{{StartedAt: at(10), EndedAt: at(60), ExitedAt: at(60),
			EndState: store.AttemptKilled}}, 10, 50},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := store.Job{ID: 1, SubmittedAt: t0, State: c.state}
			if c.ended != 0 {
				j.EndedAt = at(c.ended)
			}
			h := historyOf(j, c.atts, 0, now)
			if h.WaitS != c.wait || h.ElapsedS != c.elapsed {
				t.Errorf("wait %ds elapsed %ds, want %ds and %ds", h.WaitS, h.ElapsedS, c.wait, c.elapsed)
			}
		})
	}
}

// TestHistoryReasonOfAKilledJob: a job killed while it waited ends for
// the kill, not for its last attempt's end (a preemption); a job whose
// attempt the kill or time limit ended keeps the attempt's reason.
func TestHistoryReasonOfAKilledJob(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		name  string
		state store.JobState
		end   store.AttemptState
		want  string
	}{
		{"killed while it waited after a preemption", store.JobKilled, store.AttemptPreempted,
			"killed through the API by user:bob"},
		{"killed while it ran", store.JobKilled, store.AttemptKilled, "attempt's reason"},
		{"completed", store.JobCompleted, store.AttemptCompleted, "attempt's reason"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := store.Job{ID: 1, SubmittedAt: t0, State: c.state, EndedAt: at(100),
				Reason: "killed through the API by user:bob"}
			atts := []store.Attempt{{StartedAt: at(0), EndedAt: at(50), EndState: c.end,
				Reason: "attempt's reason"}}
			if got := historyOf(j, atts, 0, at(200)).Reason; got != c.want {
				t.Errorf("reason %q, want %q", got, c.want)
			}
		})
	}
}

// TestHistoryStateOfAHeldJob (trial 2026-11-29c C4): the history shows a
// queued job held as held, as allot jobs does; queued otherwise.
func TestHistoryStateOfAHeldJob(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		job  store.Job
		want string
	}{
		{"held", store.Job{State: store.JobQueued, HeldBy: "ana", HeldAt: now}, "held"},
		{"queued", store.Job{State: store.JobQueued}, "queued"},
		{"running", store.Job{State: store.JobRunning}, "running"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.job.SubmittedAt = now.Add(-time.Hour)
			if got := historyOf(c.job, nil, 0, now).State; got != c.want {
				t.Errorf("state %q, want %q", got, c.want)
			}
		})
	}
}

// TestHistoryEndOfAnExperiment: an experiment's record ends as the
// experiment did, not as its last trial: a completed one whose last
// trial failed gives the job's reason and no exit code; one whose last
// trial completed keeps that trial's exit 0; a job that is no
// experiment keeps its last attempt's end.
func TestHistoryEndOfAnExperiment(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	one, zero := 1, 0
	for _, c := range []struct {
		name     string
		kind     store.Kind
		state    store.JobState
		end      store.AttemptState
		exit     *int
		wantExit *int
		want     string
	}{
		{"completed, the last trial failed", store.KindExperiment, store.JobCompleted, store.AttemptFailed, &one, nil,
			"2 of 4 trials completed; 2 failed"},
		{"completed, the last trial completed", store.KindExperiment, store.JobCompleted, store.AttemptCompleted, &zero, &zero,
			"2 of 4 trials completed; 2 failed"},
		{"failed", store.KindExperiment, store.JobFailed, store.AttemptFailed, &one, &one,
			"2 of 4 trials completed; 2 failed"},
		{"a command keeps its attempt's", store.KindCommand, store.JobCompleted, store.AttemptFailed, &one, &one,
			"failed with exit code 1 on node a1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := store.Job{ID: 3, Kind: c.kind, SubmittedAt: t0, State: c.state, EndedAt: at(100),
				Reason: "2 of 4 trials completed; 2 failed"}
			atts := []store.Attempt{{StartedAt: at(0), EndedAt: at(50), EndState: c.end, ExitCode: c.exit,
				Reason: "failed with exit code 1 on node a1"}}
			h := historyOf(j, atts, 0, at(200))
			if h.Reason != c.want || (h.ExitCode == nil) != (c.wantExit == nil) || h.ExitCode != nil && *h.ExitCode != *c.wantExit {
				t.Errorf("reason %q, exit %v; want %q, %v", h.Reason, h.ExitCode, c.want, c.wantExit)
			}
		})
	}
}
