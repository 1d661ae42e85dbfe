package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestHistoryScenarioCheckpointInFlight: allot history check run while
// a preempted task still checkpoints (its agent ignores the stop until
// its grace) and the job that preempted it, with no time limit, has not
// started. That job never ran, and was left out of the export as one
// whose run time is unknown: the replay made none of the preemptions it
// caused, and the check reported a difference though nothing was wrong.
// Now it runs until the replay ends, as a running job with no time
// limit does, the open checkpoint takes longer than until the export
// (so the replay does not land it, and start the job, before the log
// was read), and the decisions before the log was read agree. With a
// checkpoint landed earlier in the window, the pool's checkpoint cost is
// that one's, shorter than the open one has taken already.
func TestHistoryScenarioCheckpointInFlight(t *testing.T) {
	for _, c := range []struct {
		name string
		// landed: an earlier preemption in the window whose checkpoint
		// landed after this many seconds (0: none).
		landed time.Duration
		// limit: the urgent job's time limit, its run time in the
		// export ("": none, it was left out).
		limit, says string
	}{
		{"no checkpoint landed before", 0, "", "was still waiting when exported, with no time limit: its tasks run until the replay ends"},
		{"one landed in 2 s before", 2 * time.Second, "", "was still waiting when exported, with no time limit: its tasks run until the replay ends"},
		// Exported before, it started in the replay once the open
		// checkpoint landed, at its pool's cost.
		{"the waiting job has a time limit", 0, `, "time_limit": 600`, "was still waiting when exported: its run time is unknown, and its tasks run for 600 s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
			a := h.agent("n1", 4)
			t0 := h.clock.Now().Truncate(time.Second).Add(time.Second)
			h.clock.Advance(t0.Sub(h.clock.Now()) + 8*time.Second)
			low := h.submit(jobSpec("low", 4, `, "preemptible": true, "priority": 80`))
			h.step()
			h.sync(a, a)
			attempt := 1
			if c.landed > 0 {
				h.clock.Advance(10 * time.Second)
				quick := h.submit(jobSpec("quick", 4, `, "priority": 10, "time_limit": 600`))
				h.step()
				h.sync(a)
				h.clock.Advance(c.landed)
				a.Exit(tid(low, 0, 1), agent.OutcomePreempted, 0)
				h.sync(a)
				h.step()
				h.sync(a, a)
				h.clock.Advance(5 * time.Second)
				a.Exit(tid(quick, 0, 1), agent.OutcomeCompleted, 0)
				h.sync(a)
				h.step()
				h.sync(a, a)
				attempt = 2
			}
			h.clock.Advance(12 * time.Second)
			h.submit(jobSpec("urgent", 4, `, "priority": 10`+c.limit))
			h.step()
			h.sync(a) // low is asked to checkpoint, and takes its time
			h.clock.Advance(5 * time.Second)
			if st := h.taskState(low, 0); st != "preempting" {
				t.Fatalf("low's task %s, want preempting", st)
			}
			q := window(t0, h.clock.Now().Add(time.Second))
			sc, body := exportScenario(t, h, q)
			if !strings.Contains(body, c.says) {
				t.Errorf("the export does not say how the waiting job runs:\n%s", body)
			}
			live := checkLiveLogBefore(t, h, q, sc, body)
			if want := fmt.Sprintf("preempt j%d-low task=0 attempt=%d", low, attempt); !strings.Contains(live, want) {
				t.Errorf("the live log lacks %q:\n%s", want, live)
			}
		})
	}
}

// checkLiveLogBefore compares the live decision log of window q with the
// replay of its export sc up to the second the log was read, as allot
// history check does (cli's compareDecisions), and returns the live part
// compared.
func checkLiveLogBefore(t *testing.T, h *harness, q string, sc *scenario.Scenario, body string) string {
	t.Helper()
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	cut := int64(live.At.Sub(live.Since) / time.Second)
	var a, b strings.Builder
	for _, l := range live.Lines {
		var at int64
		if _, err := fmt.Sscan(l, &at); err != nil || at < cut {
			a.WriteString(l + "\n")
		}
	}
	for _, d := range replayed {
		if d.At < cut {
			b.WriteString(d.Line() + "\n")
		}
	}
	if a.Len() == 0 {
		t.Errorf("no decisions before %d s", cut)
	}
	if diff := decisionlog.Diff(a.String(), b.String(), 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions before %d s differ:\n%s\nscenario:\n%s", cut, diff, body)
	}
	return a.String()
}
