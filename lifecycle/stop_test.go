package lifecycle

import "testing"

// TestStopLifecycle walks the record of a stop under way through the
// transitions both drivers make of it: the first kill decides how the
// task ends (a later kill does not take), Ends gives Decide the state
// it ends in, an agent's word that it applied the limit itself changes
// only a time limit's end, and leaving killing says whether the time
// limit ended it.
func TestStopLifecycle(t *testing.T) {
	type step func(s *Stop) bool // a transition; false: it did not take
	kill := func(to TaskState, cause string) step { return func(s *Stop) bool { return s.Kill(to, cause) } }
	limit := func(s *Stop) bool { return s.LimitKill("time_limit") }
	agent := func(s *Stop) bool { s.AgentApplied("applied by the agent"); return true }
	for _, tt := range []struct {
		name       string
		steps      []step
		took       []bool
		leave      TaskState
		wantTo     TaskState
		wantLimit  bool
		wantCause  string
		wantReason string // the end's, of a kill whose reason was "asked"
		wantTimed  bool
	}{
		{"a user's kill", []step{kill(TaskKilled, "")}, []bool{true},
			TaskKilled, TaskKilled, false, "", "asked", false},
		{"a time limit's kill", []step{limit}, []bool{true},
			TaskKilled, TaskKilled, true, "time_limit", "asked", true},
		{"a user's kill during a time limit's keeps the limit's", []step{limit, kill(TaskKilled, "")}, []bool{true, false},
			TaskKilled, TaskKilled, true, "time_limit", "asked", true},
		{"a time limit during a user's kill keeps the user's", []step{kill(TaskKilled, ""), limit}, []bool{true, false},
			TaskKilled, TaskKilled, false, "", "asked", false},
		{"a gang's failed part ends it failed", []step{kill(TaskFailed, "")}, []bool{true},
			TaskFailed, TaskFailed, false, "", "asked", false},
		{"the agent applied the limit: its reason", []step{limit, agent}, []bool{true, true},
			TaskKilled, TaskKilled, true, "time_limit", "applied by the agent", true},
		{"the agent's word leaves a user's kill alone", []step{kill(TaskKilled, ""), agent}, []bool{true, true},
			TaskKilled, TaskKilled, false, "", "asked", false},
		{"a time limit's kill whose attempt completed first", []step{limit}, []bool{true},
			TaskCompleted, TaskKilled, true, "time_limit", "asked", false},
		{"a searcher's stop found killing ends completed", []step{kill(TaskKilled, ""), (*Stop).TrialStopped}, []bool{true, true},
			TaskCompleted, TaskCompleted, false, "", "asked", false},
		{"a stop for failed is no searcher's", []step{kill(TaskFailed, ""), (*Stop).TrialStopped}, []bool{true, false},
			TaskFailed, TaskFailed, false, "", "asked", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s Stop
			for i, st := range tt.steps {
				if got := st(&s); got != tt.took[i] {
					t.Fatalf("step %d took = %v, want %v", i, got, tt.took[i])
				}
			}
			if !s.Killing() || s.AtLimit() != tt.wantLimit {
				t.Errorf("Killing %v AtLimit %v, want true and %v", s.Killing(), s.AtLimit(), tt.wantLimit)
			}
			var e Ending
			s.Ends(&e)
			if !e.Killing || e.KillTo != tt.wantTo {
				t.Errorf("Ends: killing %v to %q, want true and %q", e.Killing, e.KillTo, tt.wantTo)
			}
			if s.Cause() != tt.wantCause || s.Reason("asked") != tt.wantReason {
				t.Errorf("cause %q reason %q, want %q and %q", s.Cause(), s.Reason("asked"), tt.wantCause, tt.wantReason)
			}
			s.Leave(tt.leave)
			if s.Killing() || s.AtLimit() || s.TimedOut() != tt.wantTimed {
				t.Errorf("after Leave(%s): killing %v at limit %v timed out %v, want false false %v",
					tt.leave, s.Killing(), s.AtLimit(), s.TimedOut(), tt.wantTimed)
			}
			s.Ends(&e)
			if e.Killing || e.KillTo != "" || s.Reason("next") != "next" || s.Cause() != "" {
				t.Errorf("after Leave it still says killing %v to %q reason %q cause %q", e.Killing, e.KillTo,
					s.Reason("next"), s.Cause())
			}
			if !s.Kill(TaskKilled, "") {
				t.Error("a kill after the last one ended did not take")
			}
			s.Clear()
			if s != (Stop{}) {
				t.Errorf("after Clear: %+v, want nothing", s)
			}
		})
	}
}

// TestStopPromise: the Cluster's promise that an attempt ends at its
// time limit outlives the end of a kill, until a launch clears it, and
// no kill comes of it by itself.
func TestStopPromise(t *testing.T) {
	for _, tt := range []struct {
		name    string
		promise bool
	}{
		{"ends at its limit", true},
		{"ends with its work", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s Stop
			s.Promise(tt.promise)
			if s.Limited() != tt.promise || s.Killing() {
				t.Fatalf("Limited %v Killing %v, want %v false", s.Limited(), s.Killing(), tt.promise)
			}
			s.Kill(TaskKilled, "")
			s.Leave(TaskKilled)
			if s.Limited() != tt.promise {
				t.Errorf("after a kill's end Limited %v, want %v", s.Limited(), tt.promise)
			}
			s.Clear()
			if s.Limited() {
				t.Error("a launch left the promise")
			}
		})
	}
}

// TestSlowKillEndsByItsStop: in the Cluster, a slow kill ends as the
// record's Stop says, the first kill deciding: a time limit's kill ends
// the task timed out though its job's kill came meanwhile, and a user's
// kill, not.
func TestSlowKillEndsByItsStop(t *testing.T) {
	for _, tt := range []struct {
		name    string
		atLimit bool
	}{
		{"a time limit's kill", true},
		{"a user's kill", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ts Tasks
			ti := ts.Launch(0, 0, 0, 1000, nil, false, 0)
			ts.Kill(ti, tt.atLimit)
			task := ts.At(ti)
			if task.State != TaskKilling || task.AtLimit() != tt.atLimit {
				t.Fatalf("state %s at limit %v, want killing and %v", task.State, task.AtLimit(), tt.atLimit)
			}
			if task.Stop.Kill(TaskKilled, "") {
				t.Error("a job's kill took over the kill under way")
			}
			ts.Retire(ti, TaskKilled)
			if task.TimedOut() != tt.atLimit || task.Killing() {
				t.Errorf("retired: timed out %v killing %v, want %v false", task.TimedOut(), task.Killing(), tt.atLimit)
			}
			ts.Sweep()
			if again := ts.Launch(0, 0, 0, 1000, nil, false, 10); again != ti || ts.At(ti).TimedOut() {
				t.Errorf("relaunch in record %d (was %d) kept timed out %v", again, ti, ts.At(ti).TimedOut())
			}
		})
	}
}
