package master

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/store"
)

// TestHistoryScenarioStoppedTrials: an ASHA experiment on two GPUs whose
// searcher stops two trials early live. The export stops each stopped
// trial after the work it did live (stops), with a note, rather than
// running it for the mean of the completed trials; so the replay's
// trials start and end when the live ones did, the stopped ones killed
// and the job completed as live, and the replay's decision log is the
// live one, line for line (allot history check).
func TestHistoryScenarioStoppedTrials(t *testing.T) {
	h, a, t0, job := ashaOnTwoGPUs(t)
	h.clock.Advance(10 * time.Second)
	metricReport(a, job, 0, 1, 5)
	metricReport(a, job, 1, 1, 9) // behind trial 0 at rung 0: stopped at 10 s
	h.sync(a, a, a)
	h.step()
	h.sync(a, a) // trial 2 starts at 10 s
	h.clock.Advance(20 * time.Second)
	a.Exit(tid(job, 0, 1), agent.OutcomeCompleted, 0) // trial 0 completes at 30 s
	metricReport(a, job, 2, 1, 7)                     // not in the top third of 5, 9, 7: stopped at 30 s
	h.sync(a, a, a)
	h.step()
	h.sync(a, a) // trial 3 starts at 30 s
	h.clock.Advance(30 * time.Second)
	a.Exit(tid(job, 3, 1), agent.OutcomeCompleted, 0) // trial 3 completes at 60 s
	h.sync(a)
	h.step()
	if st := h.job(job).State; st != "completed" {
		t.Fatalf("live job %s, want completed", st)
	}

	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	if len(sc.Jobs) != 1 {
		t.Fatalf("want one job:\n%s", body)
	}
	sj := sc.Jobs[0]
	wantStops := []scenario.TaskStop{{Task: 1, After: 10}, {Task: 2, After: 20}}
	if sj.Duration != 30 || len(sj.Fails) > 0 || len(sj.Runs) > 0 ||
		!slices.EqualFunc(sj.Stops, wantStops, func(a, b scenario.TaskStop) bool { return a.Task == b.Task && a.After == b.After }) {
		t.Errorf("duration %d, fails %+v, runs %+v, stops %+v; want 30 s, none, none and %+v:\n%s",
			sj.Duration, sj.Fails, sj.Runs, sj.Stops, wantStops, body)
	}
	if !strings.Contains(body, "its searcher stopped 2 trials early as they ran") || strings.Contains(body, "counts the job failed") {
		t.Errorf("no note on the stopped trials, or the old one:\n%s", body)
	}
	res := replayScenario(t, sc, -1)
	var got []string
	for _, at := range res.Jobs[0].Attempts {
		got = append(got, fmt.Sprintf("%d-%d %s", at.Start, *at.End, at.State))
	}
	slices.Sort(got)
	want := []string{"0-10 FAILED_CANCELED", "0-30 COMPLETED", "10-30 FAILED_CANCELED", "30-60 COMPLETED"}
	if !slices.Equal(got, want) {
		t.Errorf("replayed attempts %v, want the live %v", got, want)
	}
	if st := res.Jobs[0].State; st != "completed" {
		t.Errorf("replayed job %s, want completed, as live", st)
	}
	checkLiveLog(t, h, window(t0, h.clock.Now().Add(time.Second)), sc, body)
}

// checkLiveLog compares the live decision log of window q (GET
// /history/decisions) with the replay of sc, its export (body), as
// allot history check does.
func checkLiveLog(t *testing.T, h *harness, q string, sc *scenario.Scenario, body string) {
	t.Helper()
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, b := logText(live.Lines), decisionlog.Format(replayed)
	if len(live.Lines) == 0 {
		t.Errorf("no decisions")
	}
	if diff := decisionlog.Diff(a, b, 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
}

// ashaOnTwoGPUs starts an ASHA experiment (ashaSpec: rungs at steps 1,
// 3 and 9, divisor 3) on a FIFO pool's node of two GPUs at t0, a whole
// second: trials 0 and 1 run from 0 s.
func ashaOnTwoGPUs(t *testing.T) (*harness, *mastertest.Agent, time.Time, int64) {
	t.Helper()
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 2)
	t0 := h.clock.Now().Truncate(time.Second).Add(time.Second)
	h.clock.Advance(t0.Sub(h.clock.Now()))
	job := h.submit(ashaSpec)
	h.step()
	h.sync(a, a)
	return h, a, t0, job
}

// TestHistoryScenarioLateStop: a trial its searcher stopped after more
// work than the job's exported run time (the mean of its completed
// trials) gets a run time of its own that reaches its stop (runs), so
// the replay stops it when it was stopped live instead of completing it
// at the mean, and the decision logs agree.
func TestHistoryScenarioLateStop(t *testing.T) {
	h, a, t0, job := ashaOnTwoGPUs(t)
	h.clock.Advance(5 * time.Second)
	metricReport(a, job, 0, 1, 5)
	h.sync(a, a)
	h.clock.Advance(5 * time.Second)
	a.Exit(tid(job, 0, 1), agent.OutcomeCompleted, 0) // trial 0 completes at 10 s
	h.sync(a)
	h.step()
	h.sync(a, a) // trial 2 starts at 10 s
	h.clock.Advance(10 * time.Second)
	a.Exit(tid(job, 2, 1), agent.OutcomeCompleted, 0) // trial 2 completes at 20 s
	h.sync(a)
	h.step()
	h.sync(a, a) // trial 3 starts at 20 s
	h.clock.Advance(10 * time.Second)
	a.Exit(tid(job, 3, 1), agent.OutcomeCompleted, 0) // trial 3 completes at 30 s
	h.sync(a)
	h.clock.Advance(10 * time.Second)
	metricReport(a, job, 1, 1, 9) // behind trial 0 at rung 0: stopped at 40 s, after 40 s of work
	h.sync(a, a, a)
	h.step()
	h.sync(a)
	if st := h.job(job).State; st != "completed" {
		t.Fatalf("live job %s, want completed", st)
	}

	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	if len(sc.Jobs) != 1 {
		t.Fatalf("want one job:\n%s", body)
	}
	sj := sc.Jobs[0]
	if sj.Duration != 10 || len(sj.Stops) != 1 || sj.Stops[0].Task != 1 || sj.Stops[0].After != 40 ||
		len(sj.Runs) != 1 || sj.Runs[0].Task != 1 || sj.Runs[0].Work != 40 {
		t.Errorf("duration %d, runs %+v, stops %+v; want 10 s, and task 1 running 40 s of its own, stopped after 40 s:\n%s",
			sj.Duration, sj.Runs, sj.Stops, body)
	}
	checkLiveLog(t, h, window(t0, h.clock.Now().Add(time.Second)), sc, body)
}

// TestHistoryScenarioSlowStop: a trial its searcher stops while its
// agent is silent holds its GPU, killing, until the agent hears the kill
// (5 s later), so the next trial starts then live, not at the stop.
// Exported while the kill is under way, the stop is a slow kill that ends
// a second after the export; exported after it, the trial is stopped
// where its attempt ended live (15 s: its GPU held until then, no slow
// kill). Either way the replay's decisions are the live ones, line for
// line (the end of an attempt a searcher stopped has no kill line).
func TestHistoryScenarioSlowStop(t *testing.T) {
	h, a, t0, job := ashaOnTwoGPUs(t)
	h.clock.Advance(10 * time.Second)
	metricReport(a, job, 0, 1, 5)
	metricReport(a, job, 1, 1, 9) // behind trial 0 at rung 0: stopped at 10 s
	h.sync(a)                     // the metrics: the stop's kill waits for the agent's next sync
	h.step()
	if st := h.taskState(job, 1); st != store.TaskKilling {
		t.Fatalf("stopped trial %s, want killing while its agent is silent", st)
	}
	h.clock.Advance(2 * time.Second)
	mid, midBody := exportScenario(t, h, window(t0, h.clock.Now()))
	if n := len(mid.Jobs[0].SlowKills); n != 1 {
		t.Errorf("export during the kill: %d slow kills, want 1:\n%s", n, midBody)
	}
	checkLiveLog(t, h, window(t0, h.clock.Now().Add(time.Second)), mid, midBody)

	h.clock.Advance(3 * time.Second)
	h.sync(a, a, a) // the kill at 15 s, the trial's end reported
	h.step()
	h.sync(a, a) // trial 2 starts at 15 s
	h.clock.Advance(20 * time.Second)
	a.Exit(tid(job, 0, 1), agent.OutcomeCompleted, 0) // trial 0 completes at 35 s
	a.Exit(tid(job, 2, 1), agent.OutcomeCompleted, 0) // trial 2 at 35 s
	h.sync(a)
	h.step()
	h.sync(a, a) // trial 3 starts at 35 s
	h.clock.Advance(20 * time.Second)
	a.Exit(tid(job, 3, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	if st := h.job(job).State; st != "completed" {
		t.Fatalf("live job %s, want completed", st)
	}
	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	sj := sc.Jobs[0]
	if len(sj.Stops) != 1 || sj.Stops[0].Task != 1 || sj.Stops[0].After != 15 || len(sj.SlowKills) != 0 {
		t.Errorf("stops %+v, slow kills %+v; want task 1 stopped after 15 s, where it ended, and no slow kill:\n%s",
			sj.Stops, sj.SlowKills, body)
	}
	checkLiveLog(t, h, window(t0, h.clock.Now().Add(time.Second)), sc, body)
}
