package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// TestTrialExitOutrunsStop: a trial whose late reports make the searcher
// stop it at a rung, but which had exited 0 on its own before any kill
// reached it, ends completed, its attempt completed, and shows done; one
// that the kill did end shows stopped, its attempt killed.
func TestTrialExitOutrunsStop(t *testing.T) {
	for _, c := range []struct {
		name string
		// apart sends the late reports in a sync of their own, the
		// searcher's stop then reaching the agent (which holds the kill)
		// before the exit; else the reports and the exit share one sync.
		apart   bool
		outcome agent.Outcome
		// want: the attempt's end, the task's reason (a prefix), the
		// trial's decision.
		end      store.AttemptState
		reason   string
		decision string
	}{
		{"reports and exit in one sync", false, agent.OutcomeCompleted, store.AttemptCompleted, "completed", "done"},
		{"exit after the stop, before the kill", true, agent.OutcomeCompleted, store.AttemptCompleted, "completed", "done"},
		{"killed by the stop", true, agent.OutcomeKilled, store.AttemptKilled, "stopped early by the searcher at step 1", "stopped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 4)
			a.HoldKill = true
			job := h.submit(ashaSpec)
			h.step()
			h.sync(a, a)
			metricReport(a, job, 0, 1, 5)
			h.sync(a)
			// Trial 1 trained to max_length (9); its reports arrive late,
			// and the first puts it behind trial 0 at rung 0.
			metricReport(a, job, 1, 1, 9)
			metricReport(a, job, 1, 3, 8)
			metricReport(a, job, 1, 9, 7)
			if c.apart {
				h.sync(a)
				if got := h.taskState(job, 1); got != store.TaskKilling {
					t.Fatalf("trial 1 is %s after the stop, want killing", got)
				}
			}
			code := 0
			if c.outcome == agent.OutcomeKilled {
				code = -1
			}
			if !a.Exit(tid(job, 1, 1), c.outcome, code) {
				t.Fatal("trial 1 is not running on the agent")
			}
			h.sync(a, a)
			tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: job})
			if err != nil {
				t.Fatal(err)
			}
			if tasks[1].State != store.TaskCompleted || !strings.HasPrefix(tasks[1].Reason, c.reason) {
				t.Errorf("trial 1: %s %q, want completed %q", tasks[1].State, tasks[1].Reason, c.reason)
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: job})
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range atts {
				if at.Index == 1 && (at.EndState != c.end || at.ExitCode == nil || *at.ExitCode != code) {
					t.Errorf("trial 1's attempt ended %s, exit %v; want %s, %d", at.EndState, at.ExitCode, c.end, code)
				}
			}
			if got := h.metrics(job).Trials[1].Decision; got != c.decision {
				t.Errorf("trial 1's decision %q, want %q", got, c.decision)
			}
		})
	}
}

// TestExperimentWithFailedTrials: an experiment ends completed once one
// trial completed, whatever the others did, its reason counting those
// that failed, and the failed trials show DECISION failed; one none of
// whose trials completed fails as any job.
func TestExperimentWithFailedTrials(t *testing.T) {
	for _, c := range []struct {
		name   string
		failed int // trials 0..failed-1 exit 7, the others 0
		state  store.JobState
		reason string
	}{
		{"one trial failed", 1, store.JobCompleted, "3 of 4 trials completed; 1 failed"},
		{"every trial failed", 4, store.JobFailed, "4 of 4 tasks failed; task 0: failed with exit code 7 on node n1"},
		{"none failed", 0, store.JobCompleted, "every task completed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 4)
			job := h.submit(ashaSpec)
			h.step()
			h.sync(a, a)
			for i := range 4 {
				outcome, code := agent.OutcomeCompleted, 0
				if i < c.failed {
					outcome, code = agent.OutcomeFailed, 7
				}
				a.Exit(tid(job, i, 1), outcome, code)
			}
			h.sync(a, a)
			j := h.job(job)
			if j.State != string(c.state) || j.Reason != c.reason {
				t.Errorf("experiment %s %q, want %s %q", j.State, j.Reason, c.state, c.reason)
			}
			for i, tr := range h.metrics(job).Trials {
				want := "done"
				if i < c.failed {
					want = "failed"
				}
				if tr.Decision != want {
					t.Errorf("trial %d (%s): decision %q, want %q", i, tr.State, tr.Decision, want)
				}
			}
		})
	}
}

// TestExperimentCapReason: an experiment held by its cap on running
// trials says so with the job file's field, max_concurrent_trials or
// max_slots, where allot jobs lists it.
func TestExperimentCapReason(t *testing.T) {
	for _, c := range []struct{ name, resources, searcher, want string }{
		{"max_concurrent_trials", "", `, "max_concurrent_trials": 2`,
			"already running as many trials as max_concurrent_trials allows"},
		{"max_slots", `, "max_slots": 2`, "", "already running as many trials as max_slots allows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			h.agent("n1", 4)
			id := h.submit(`{"name": "hp", "entrypoint": "train", "resources": {"slots": 1` + c.resources + `},
				"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3, 4]}},
				"searcher": {"name": "grid"` + c.searcher + `}}`)
			h.step()
			if p := h.job(id).Pending; p == nil || p.Message != c.want {
				t.Errorf("pending %+v, want message %q", p, c.want)
			}
		})
	}
}

// TestKillOutrunByExit: a task that exited 0 on its own before a user's
// kill or its time limit's reached it (its agent reports it completed,
// not killed) ends completed, its attempt completed, as Slurm keeps a job
// that completed before its cancel arrived; one the kill reached ends
// killed. A job the user killed stays killed either way.
func TestKillOutrunByExit(t *testing.T) {
	for _, c := range []struct {
		name    string
		limit   bool // the kill is the time limit's, not the user's
		outcome agent.Outcome
		task    store.TaskState
		end     store.AttemptState
		job     store.JobState
	}{
		{"user's kill outrun", false, agent.OutcomeCompleted, store.TaskCompleted, store.AttemptCompleted, store.JobKilled},
		{"user's kill reached it", false, agent.OutcomeKilled, store.TaskKilled, store.AttemptKilled, store.JobKilled},
		{"time limit's kill outrun", true, agent.OutcomeCompleted, store.TaskCompleted, store.AttemptCompleted, store.JobCompleted},
		{"time limit's kill reached it", true, agent.OutcomeKilled, store.TaskKilled, store.AttemptKilled, store.JobKilled},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 4)
			a.HoldKill = true
			job := h.submit(jobSpec("j", 1, `, "time_limit": 10`))
			h.step()
			h.sync(a, a)
			if c.limit {
				h.clock.Advance(11 * time.Second)
				h.m.Tick(h.ctx)
			} else if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(job, 10)+"/kill", nil, nil); code != 200 {
				t.Fatalf("kill: %d", code)
			}
			h.sync(a) // the kill reaches the agent, which holds it
			if got := h.taskState(job, 0); got != store.TaskKilling {
				t.Fatalf("task is %s after the kill, want killing", got)
			}
			code := 0
			if c.outcome == agent.OutcomeKilled {
				code = -1
			}
			if !a.Exit(tid(job, 0, 1), c.outcome, code) {
				t.Fatal("the task is not running on the agent")
			}
			h.sync(a, a)
			if got := h.taskState(job, 0); got != c.task {
				t.Errorf("task %s, want %s", got, c.task)
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: job})
			if err != nil || len(atts) != 1 || atts[0].EndState != c.end {
				t.Errorf("attempts %+v, %v: want one, ended %s", atts, err, c.end)
			}
			if j := h.job(job); j.State != string(c.job) {
				t.Errorf("job %s (%s), want %s", j.State, j.Reason, c.job)
			}
		})
	}
}
