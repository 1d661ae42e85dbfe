package master

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/sim"
)

// TestHistoryScenarioLiveJobs: a job still live when exported is not
// replayed as if it ended when the window did. Before, a grid of 6 tasks
// with 4 running was exported with the time they had run so far as its
// run time (duration: 52), replayed as completed at the window's end,
// and nothing said so. Now its run time is what its history allows (its
// time limit; the mean of its completed tasks, or more where a running
// task had already done more; none without a limit, so that it runs
// past the window's end, unfinished), and a note names the job and what
// was assumed.
func TestHistoryScenarioLiveJobs(t *testing.T) {
	const grid = `{"name": "train-grid", "entrypoint": "python train.py", "resources": {"slots": 1%s},
		"hyperparameters": {"x": {"type": "categorical", "vals": [1, 2, 3, 4, 5, 6]}}}`
	tests := []struct {
		name, limit string
		// done tasks complete after ran seconds (the others start
		// then), and the export comes more seconds later.
		done, ran, more int
		duration        int64
		says            string
		unfinished      bool
	}{
		{"running, no time limit", "", 0, 0, 52, -1,
			"was still running (4 of its 6 tasks) when exported, with no time limit: its tasks run until the replay ends, unfinished", true},
		{"running, a time limit", `, "time_limit": 3600`, 0, 0, 52, 3600,
			"was still running (4 of its 6 tasks) when exported: its run time is unknown, and its tasks run for 3600 s, its time limit", false},
		{"running, two tasks completed sooner", "", 2, 30, 52, 83,
			"was still running (4 of its 6 tasks) when exported: its tasks run for 83 s, a second more than a task still running had done (its 2 completed tasks mean 30 s)", false},
		{"running, four tasks completed later", "", 4, 100, 20, 100,
			"was still running (2 of its 6 tasks) when exported: its tasks run for the mean of its 4 completed tasks, 100 s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			a := h.agent("n1", 4)
			t0 := h.clock.Now()
			h.clock.Advance(8 * time.Second)
			id := h.submit(fmt.Sprintf(grid, tt.limit))
			h.step()
			h.sync(a, a)
			if tt.done > 0 {
				h.clock.Advance(time.Duration(tt.ran) * time.Second)
				for i := range tt.done {
					a.Exit(tid(id, i, 1), agent.OutcomeCompleted, 0)
				}
				h.sync(a)
				h.step()
				h.sync(a, a)
			}
			h.clock.Advance(time.Duration(tt.more) * time.Second)
			end := int64(h.clock.Now().Sub(t0).Seconds())
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			name := "j" + strconv.FormatInt(id, 10) + "-train-grid"
			if len(sc.Jobs) != 1 || sc.Jobs[0].Name != name || sc.Jobs[0].Duration != tt.duration {
				t.Fatalf("jobs %+v, want %s with run time %d s\n%s", sc.Jobs, name, tt.duration, body)
			}
			if want := "# Note: job " + strconv.FormatInt(id, 10) + " (" + name + ") " + tt.says; !strings.Contains(body, want) {
				t.Errorf("the export does not say %q:\n%s", want, body)
			}
			res := replayScenario(t, sc, -1)
			if got := res.Metrics.Unfinished == 1; got != tt.unfinished {
				t.Errorf("replayed unfinished %d, want the job unfinished: %v", res.Metrics.Unfinished, tt.unfinished)
			}
			if j := res.Jobs[0]; !tt.unfinished && (j.State != sim.StateCompleted || j.End == nil || *j.End <= end) {
				t.Errorf("replayed %s ending at %v, want completed after the window's end (%d s)", j.State, j.End, end)
			}
		})
	}
}

// TestHistoryScenarioWaitingJobs: a job still waiting when exported runs
// for its time limit if it starts, and the file says so; one without a
// time limit runs until the replay ends, as a running one does, its run
// time unknown (it was left out, and the replay missed what it decided:
// TestHistoryScenarioCheckpointInFlight).
func TestHistoryScenarioWaitingJobs(t *testing.T) {
	tests := []struct {
		name, limit string
		duration    int64
		says        string
	}{
		{"a time limit", `, "time_limit": 600`, 600,
			"(j%d-late) was still waiting when exported: its run time is unknown, and its tasks run for 600 s, its time limit"},
		{"no time limit", "", -1,
			"(j%d-late) was still waiting when exported, with no time limit: its tasks run until the replay ends, unfinished, as its run time is unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			a := h.agent("n1", 4)
			t0 := h.clock.Now()
			h.submit(jobSpec("busy", 4, `, "time_limit": 7200`))
			h.step()
			h.sync(a, a)
			late := h.submit(jobSpec("late", 2, tt.limit))
			h.step()
			h.clock.Advance(time.Minute)
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			if len(sc.Jobs) != 2 {
				t.Fatalf("%d jobs exported, want 2\n%s", len(sc.Jobs), body)
			}
			if want := fmt.Sprintf(tt.says, late); !strings.Contains(body, want) {
				t.Errorf("the export does not say %q:\n%s", want, body)
			}
			if sc.Jobs[1].Duration != tt.duration {
				t.Errorf("the waiting job's run time %d s, want %d s", sc.Jobs[1].Duration, tt.duration)
			}
		})
	}
}

func TestRunningOf(t *testing.T) {
	for _, c := range []struct {
		open, tasks int
		want        string
	}{{4, 6, "4 of its 6 tasks"}, {6, 6, "all 6 of its tasks"}, {1, 1, "its only task"}, {1, 2, "1 of its 2 tasks"}} {
		t.Run(c.want, func(t *testing.T) {
			if got := runningOf(c.open, c.tasks); got != c.want {
				t.Errorf("runningOf(%d, %d) = %q, want %q", c.open, c.tasks, got, c.want)
			}
		})
	}
}

// TestHistoryScenarioDefaultWindow: without a since, the export of a
// cluster younger than the default window counts from the cluster's
// start (its first node's registration), so a replay's times are the
// cluster's, not days from a window's start before anything ran; a since
// given is kept.
func TestHistoryScenarioDefaultWindow(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	h.clock.Advance(time.Hour)
	a := h.agent("n1", 2)
	born := h.clock.Now().Truncate(time.Second)
	h.clock.Advance(90 * time.Second)
	id := h.submit(jobSpec("one", 1, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Minute)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	for _, c := range []struct {
		name, q string
		submit  int64
		from    time.Time
	}{
		{"default window", "", 90, born},
		{"since given", "?since=" + url.QueryEscape(born.Add(-time.Hour).Format(time.RFC3339)), 3690, born.Add(-time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, body := exportScenario(t, h, c.q)
			if len(sc.Jobs) != 1 || sc.Jobs[0].Submit != c.submit {
				t.Fatalf("jobs %+v, want one submitted at %d s\n%s", sc.Jobs, c.submit, body)
			}
			if want := "from " + c.from.Format(time.RFC3339); !strings.Contains(body, want) {
				t.Errorf("the header does not say %q:\n%s", want, body)
			}
		})
	}
}

// TestHistoryScenarioPreemptedAtStart: a job still waiting when exported,
// with no time limit, whose task ran less than a whole second (urgent
// preempted it in the second it started) ran: it is exported to run until
// the replay ends, not left out as never run, and the replay's decisions
// are the live ones (found by a new-user trial: allot history check
// differed by the job's start and preemption).
func TestHistoryScenarioPreemptedAtStart(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
	a := h.agent("n1", 4)
	t0 := h.clock.Now().Truncate(time.Second).Add(time.Second)
	h.clock.Advance(t0.Sub(h.clock.Now()) + 8*time.Second)
	low := h.submit(jobSpec("low", 4, `, "preemptible": true, "priority": 80`))
	h.step()
	h.sync(a, a)
	h.submit(jobSpec("urgent", 4, `, "priority": 10`))
	h.step()
	h.sync(a)
	a.Exit(tid(low, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	h.step()
	h.sync(a, a)
	h.clock.Advance(20 * time.Second)
	q := window(t0, h.clock.Now().Add(time.Second))
	sc, body := exportScenario(t, h, q)
	if len(sc.Jobs) != 2 || sc.Jobs[0].Duration != -1 {
		t.Fatalf("jobs %+v, want both, the preempted one running until the replay ends\n%s", sc.Jobs, body)
	}
	checkLiveLog(t, h, q, sc, body)
}
