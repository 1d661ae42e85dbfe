package master

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/sim"
)

// retentionHistory runs, on one GPU with history_retention 1h: j1 from
// t0 to t0+30m, j2 submitted at t0+10m waiting for it (t0+30m to
// t0+90m), then j3 (t0+100m to t0+110m) and j4 waiting for it (to
// t0+120m); the tick at t0+120m forgets j1 alone (cutoff t0+60m). It
// returns t0.
func retentionHistory(t *testing.T, h *harness) time.Time {
	t.Helper()
	a := h.agent("n1", 1)
	t0 := h.clock.Now()
	ids := map[string]int64{}
	run := func(name string) {
		ids[name] = h.submit(jobSpec(name, 1, ""))
		h.step()
		h.sync(a, a)
	}
	end := func(name string) {
		a.Exit(tid(ids[name], 0, 1), agent.OutcomeCompleted, 0)
		h.sync(a)
		h.step()
		h.sync(a, a)
	}
	run("j1")
	h.clock.Advance(10 * time.Minute)
	run("j2")
	h.clock.Advance(20 * time.Minute)
	end("j1")
	h.clock.Advance(time.Hour)
	end("j2")
	h.clock.Advance(10 * time.Minute)
	run("j3")
	h.clock.Advance(time.Minute)
	run("j4")
	h.clock.Advance(9 * time.Minute)
	end("j3")
	h.clock.Advance(10 * time.Minute)
	end("j4")
	h.m.Tick(h.ctx)
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", ids["j1"]), nil, nil); code != 404 {
		t.Fatalf("j1, ended 90m ago with a retention of 1h: %d, want 404 (forgotten)", code)
	}
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", ids["j2"]), nil, nil); code != 200 {
		t.Fatalf("j2, ended 30m ago: %d, want 200 (kept)", code)
	}
	return t0
}

// TestHistoryRetentionHorizon (trial 29c C6): once history_retention
// forgot j1, the default window of the decision log and the export
// starts after j1's end (not at the cluster's start: j2, which waited
// for j1, would start sooner in the replay), says so, and replays as
// the live master decided; a since before the horizon is refused,
// naming history_retention and the horizon; a restarted master knows
// the horizon from the store.
func TestHistoryRetentionHorizon(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "history_retention: 1h\npools:\n  - {name: default, policy: fifo}\n")))
	t0 := retentionHistory(t, h)
	horizon := t0.Add(30 * time.Minute).UTC().Format(time.RFC3339)
	for _, restart := range []bool{false, true} {
		if restart {
			h.start()
		}
		var live api.DecisionLog
		if code := h.do("GET", "/api/v1/history/decisions", nil, &live); code != 200 {
			t.Fatalf("restart %v: decisions: %d", restart, code)
		}
		if got := live.Since.UTC().Format(time.RFC3339); got != horizon {
			t.Fatalf("restart %v: the default window starts at %s, want the horizon %s (j1's end)", restart, got, horizon)
		}
		// As allot history check: the export of the window the log has.
		sc, body := exportScenario(t, h, window(live.Since, live.Until))
		if want := "# Note: the window starts at the history_retention horizon " + horizon +
			", not before: the master forgot 1 finished job that ended before " + t0.Add(time.Hour).UTC().Format(time.RFC3339) +
			" (history_retention), the last at " + horizon; !strings.Contains(body, want) {
			t.Errorf("restart %v: the export lacks %q:\n%s", restart, want, body)
		}
		if len(sc.Jobs) != 2 {
			t.Errorf("restart %v: %d jobs exported, want j3 and j4 (j2 was submitted before the window)", restart, len(sc.Jobs))
		}
		replayed, err := sim.ReplayDecisions(sc)
		if err != nil {
			t.Fatal(err)
		}
		if diff := decisionlog.Diff(logText(live.Lines), decisionlog.Format(replayed), 3); diff != "" || len(live.Lines) == 0 {
			t.Errorf("restart %v: live (-) and replayed (+) decisions differ (%d live):\n%s", restart, len(live.Lines), diff)
		}
		checkHorizonRefusals(t, h, t0, horizon)
	}
}

// checkHorizonRefusals: a window from before the horizon is refused by
// the export and the decision log alike, on the parameter that puts it
// there.
func checkHorizonRefusals(t *testing.T, h *harness, t0 time.Time, horizon string) {
	t.Helper()
	tests := []struct{ name, q, field, want string }{
		{"since before the horizon", "?since=" + url.QueryEscape(t0.UTC().Format(time.RFC3339)), "since",
			"since " + t0.UTC().Format(time.RFC3339) + " is before the history_retention horizon " + horizon +
				": the master forgot 1 finished job that ended before "},
		{"default since, until before the horizon", "?until=" + url.QueryEscape(t0.Add(20*time.Minute).UTC().Format(time.RFC3339)),
			"until", "is not after the history_retention horizon " + horizon},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/v1/history/scenario", "/api/v1/history/decisions"} {
			code, body, _ := h.raw("GET", path+tt.q, "")
			if code != 400 || !strings.Contains(body, tt.want) || !strings.Contains(body, `"field":"`+tt.field+`"`) {
				t.Errorf("%s: %s%s: %d %s, want 400 on %s saying %q", tt.name, path, tt.q, code, body, tt.field, tt.want)
			}
		}
	}
	// A since at the horizon, or after it, is the history as it was.
	if code, body, _ := h.raw("GET", "/api/v1/history/scenario?since="+url.QueryEscape(horizon), ""); code != 200 {
		t.Errorf("since at the horizon: %d %s, want 200", code, body)
	}
}
