package master

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// TestForecastETA: under FIFO, where the core reserves nothing, every
// waiting job still gets an estimated start from the forecast: when the
// tasks before it end at their time limits. A job behind a task without a
// time limit gets none.
func TestForecastETA(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 4)
	h.submit(jobSpec("running", 4, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	b := h.submit(jobSpec("b", 4, `, "time_limit": 1800`))
	c := h.submit(jobSpec("c", 2, `, "time_limit": 600`))
	forever := h.submit(jobSpec("forever", 4, ""))
	after := h.submit(jobSpec("after", 1, `, "time_limit": 60`))
	h.step()
	h.m.planner.refreshETA()
	now := h.clock.Now()
	tests := []struct {
		name string
		id   int64
		want time.Duration // from now; -1 for no estimate
	}{
		{"behind the running job", b, time.Hour},
		{"behind b", c, 90 * time.Minute},
		{"after c", forever, 100 * time.Minute},
		{"behind a job without a time limit", after, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.job(tt.id).Pending
			if p == nil {
				t.Fatal("no pending explanation")
			}
			if tt.want < 0 {
				if p.EstimatedStart != nil {
					t.Fatalf("estimated start %v, want none", p.EstimatedStart)
				}
				return
			}
			if p.EstimatedStart == nil || !p.EstimatedStart.Equal(now.Add(tt.want)) || p.EstimateBasis != "forecast" {
				t.Fatalf("estimate %v (%s), want %v from a forecast", p.EstimatedStart, p.EstimateBasis, now.Add(tt.want))
			}
		})
	}
}

// TestForecastRange: once recent attempts show that jobs use half their
// time limits, a forecast comes with an earlier end of its range.
func TestForecastRange(t *testing.T) {
	h := halfUsedHarness(t, "fifo")
	b := h.submit(jobSpec("b", 4, `, "time_limit": 1800`))
	h.step()
	h.m.planner.refreshETA()
	p := h.job(b).Pending
	now := h.clock.Now()
	if p == nil || p.EstimatedStart == nil || p.EstimatedStartEarliest == nil ||
		!p.EstimatedStart.Equal(now.Add(time.Hour)) || !p.EstimatedStartEarliest.Equal(now.Add(30*time.Minute)) {
		t.Fatalf("pending %+v, want a start between 30m and 1h from now", p)
	}
}

// TestReservationRange (trial p F9): in an EASY pool the head's
// reservation, by whole time limits, comes with the forecast's early end
// too, so that the job behind it shows no earlier start than it.
func TestReservationRange(t *testing.T) {
	h := halfUsedHarness(t, "backfill")
	head := h.submit(jobSpec("head", 4, `, "time_limit": 1800`))
	behind := h.submit(jobSpec("behind", 2, `, "time_limit": 1800`))
	h.step()
	h.m.planner.refreshETA()
	now := h.clock.Now()
	p, q := h.job(head).Pending, h.job(behind).Pending
	if p == nil || p.EstimateBasis != "reservation" || p.EstimatedStart == nil || p.EstimatedStartEarliest == nil ||
		!p.EstimatedStart.Equal(now.Add(time.Hour)) || !p.EstimatedStartEarliest.Equal(now.Add(30*time.Minute)) {
		t.Fatalf("head's pending %+v, want its reservation in 1h with the early end in 30m", p)
	}
	if q == nil || q.EstimatedStartEarliest == nil || q.EstimatedStartEarliest.Before(*p.EstimatedStartEarliest) {
		t.Fatalf("the job behind: %+v; want no earlier start than the head's %v", q, p.EstimatedStartEarliest)
	}
}

// halfUsedHarness is a master whose recent attempts used half their
// time limits, with a 4-GPU node full of a job of an hour's limit, in a
// pool of the policy given.
func halfUsedHarness(t *testing.T, policy string) *harness {
	t.Helper()
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: "+policy+"}\n")))
	for range 6 {
		h.m.lock()
		h.m.planner.runs.note(30*time.Minute, time.Hour)
		h.m.mu.Unlock()
	}
	a := h.agent("n1", 4)
	h.submit(jobSpec("running", 4, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	return h
}

// TestETADue: the forecast runs every etaEvery, and sooner once a job
// was added since the last one, but not sooner than a second nor than
// five times what the last forecast took.
func TestETADue(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		wanted bool
		took   time.Duration
		since  time.Duration
		due    bool
	}{
		{"nothing new, before its time", false, 0, 5 * time.Second, false},
		{"nothing new, its time", false, 0, etaEvery, true},
		{"a job added, a second on", true, 10 * time.Millisecond, time.Second, true},
		{"a job added, not yet a second on", true, 10 * time.Millisecond, 500 * time.Millisecond, false},
		{"a job added, the last forecast was slow", true, time.Second, 3 * time.Second, false},
		{"a job added, five times the last forecast on", true, time.Second, 5 * time.Second, true},
		{"a job added, its time whatever the forecast takes", true, 4 * time.Second, etaEvery, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &etaRun{at: at, wanted: c.wanted, took: c.took}
			if got := r.due(at.Add(c.since)); got != c.due {
				t.Errorf("due %v, want %v", got, c.due)
			}
		})
	}
}

// TestETAWantedAfterSubmit: a submission asks for a forecast before
// etaEvery is up; the forecast made after it answers it.
func TestETAWantedAfterSubmit(t *testing.T) {
	h := newHarness(t)
	h.m.planner.refreshETA()
	wanted := func() bool {
		h.m.lock()
		defer h.m.unlock()
		return h.m.planner.etaRun.wanted
	}
	if wanted() {
		t.Fatal("a forecast wanted with no job added since the last")
	}
	h.submit(jobSpec("new", 1, ""))
	if !wanted() {
		t.Fatal("no forecast wanted after a submission")
	}
	h.m.planner.refreshETA()
	if wanted() {
		t.Error("still wanted after the forecast")
	}
}

// TestETAWantedAfterChanges: a reload, a drain and a resume ask for a
// forecast before etaEvery is up, as a submission does: every estimate
// may move, and the old ones stood beside the new reasons until then.
func TestETAWantedAfterChanges(t *testing.T) {
	withFile, path := withConfigFile(t, "pools: [{name: default, policy: fifo}]\n")
	h := newHarness(t, withFile)
	h.agent("n1", 2)
	wanted := func() bool {
		h.m.lock()
		defer h.m.unlock()
		return h.m.planner.etaRun.wanted
	}
	cases := []struct {
		name   string
		change func() int
	}{
		{"a reload", func() int {
			writeConfig(t, path, "pools: [{name: default, policy: priority}]\n")
			return h.do("POST", "/api/v1/config/reload", nil, nil)
		}},
		{"a drain", func() int { return h.do("POST", "/api/v1/nodes/n1/drain", map[string]string{"reason": "fan"}, nil) }},
		{"a resume", func() int { return h.do("POST", "/api/v1/nodes/n1/resume", nil, nil) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.m.planner.refreshETA()
			if wanted() {
				t.Fatal("a forecast wanted before the change")
			}
			if code := tc.change(); code != 200 {
				t.Fatalf("change: %d", code)
			}
			if !wanted() {
				t.Error("no forecast wanted after the change")
			}
		})
	}
}

// TestForecastRangeAfterRestart (trial o F9): a restarted master reads
// the shares of their time limits that recent attempts used back from
// the store, so that forecasts keep their range; attempts that failed
// or whose job has no time limit count no more than they did live. It
// reads the jobs a page at a time (restoreRunPage), newest first, so
// attempts behind a page of newer jobs with none are found too.
func TestForecastRangeAfterRestart(t *testing.T) {
	tests := []struct {
		name      string
		completed int // attempts completing at half their hour's limit
		want      float64
		newer     int // jobs with no time limit submitted after them
	}{
		{"five completed give the median", 5, 0.5, 0},
		{"four are too few for a range", 4, 0, 0},
		{"behind a page of newer jobs", 5, 0.5, restoreRunPage + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 8)
			var done []int64
			for range tt.completed {
				done = append(done, h.submit(jobSpec("half", 1, `, "time_limit": 3600`)))
			}
			failed := h.submit(jobSpec("failed", 1, `, "time_limit": 3600`))
			nolimit := h.submit(jobSpec("nolimit", 1, ""))
			h.step()
			h.sync(a, a)
			h.clock.Advance(30 * time.Minute)
			for _, id := range append(done, nolimit) {
				a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			}
			a.Exit(tid(failed, 0, 1), agent.OutcomeFailed, 1)
			h.sync(a)
			for range tt.newer {
				h.submit(jobSpec("later", 1, ""))
			}
			h.m.lock()
			live, n := h.m.planner.runs.typical(), len(h.m.planner.runs.ratios)
			h.m.mu.Unlock()
			if live != tt.want || n != tt.completed {
				t.Fatalf("live: %d shares, median %v; want %d, %v", n, live, tt.completed, tt.want)
			}
			h.start()
			if got, n := h.m.planner.runs.typical(), len(h.m.planner.runs.ratios); got != tt.want || n != tt.completed {
				t.Fatalf("after a restart: %d shares, median %v; want %d, %v", n, got, tt.completed, tt.want)
			}
		})
	}
}
