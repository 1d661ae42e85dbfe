package master

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestUsageEndsAtExit: a task that exits while its agent cannot reach
// the master is charged until it exited, by the agent's report once it
// is back, not until the master heard of it; the attempt still ends,
// and its GPUs come free, when the master heard of it. The agent is
// heard until heard minutes after the start, silent then (its node up,
// or lost and the task held through the loss, or the master restarted
// meanwhile), the task exits at exit minutes, and the agent is back at
// back minutes and reports it. The five-minute records stop at the last
// time the agent said the task runs, and catch up when it says so again. An exit time that the agent's clock puts
// outside the attempt is taken within it. Usage records cover the
// attempt from its start to its stored exit, once, and a restart of the
// master after the end keeps them so.
func TestUsageEndsAtExit(t *testing.T) {
	cases := []struct {
		name              string
		heard, exit       float64 // minutes after the start
		again             float64 // when positive, the agent is heard again from then, the task running
		back              float64 // minutes after the start; a multiple of 5
		noTime            bool    // the report gives no exit time
		lost, restart     bool    // the node is lost meanwhile; the master restarts at 40
		wantExit, wantEnd float64 // minutes after the start
	}{
		{name: "exit heard within the sync", heard: 20, exit: 22, back: 25, wantExit: 22, wantEnd: 25},
		{name: "exit while the agent is silent", heard: 20, exit: 25, back: 60, wantExit: 25, wantEnd: 60},
		{name: "heard again, then exit", heard: 20, again: 40, exit: 52, back: 55, wantExit: 52, wantEnd: 55},
		{name: "exit while the node is lost", heard: 20, exit: 25, back: 60, lost: true, wantExit: 25, wantEnd: 60},
		{name: "master restarted in the silence", heard: 20, exit: 25, back: 60, restart: true, wantExit: 25, wantEnd: 60},
		{name: "lost and restarted", heard: 20, exit: 25, back: 60, lost: true, restart: true, wantExit: 25, wantEnd: 60},
		{name: "exit time after the master heard", heard: 20, exit: 90, back: 60, wantExit: 60, wantEnd: 60},
		{name: "exit time before the start", heard: 20, exit: -60, back: 60, wantExit: 20, wantEnd: 60},
		{name: "no exit time", heard: 20, back: 60, noTime: true, wantExit: 60, wantEnd: 60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timeout := "2h"
			if c.lost {
				timeout = "30s"
			}
			h := newHarness(t, withConfig(mustConfig(t, "agent_timeout: "+timeout+"\nlost_node_grace: 2h\n")))
			a := h.agent("n1", 4)
			id := h.submitAs("ana", jobSpec("work", 2, `, "preemptible": false`))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			minutes := func(m float64) time.Time { return start.Add(time.Duration(m * float64(time.Minute))) }
			task := tid(id, 0, 1)
			for m := 5.0; m <= c.back; m += 5 {
				h.clock.Advance(5 * time.Minute)
				if m <= c.heard || c.again > 0 && m >= c.again && m < c.back {
					h.sync(a)
				}
				if c.restart && m == 40 {
					h.start()
				}
				h.m.Tick(h.ctx)
			}
			if h.m.nodes["n1"].up() == c.lost {
				t.Fatalf("node up %t at the agent's return, want %t", h.m.nodes["n1"].up(), !c.lost)
			}
			a.Forget(task)
			code := 0
			r := api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code}
			if !c.noTime {
				r.At = minutes(c.exit)
			}
			a.Inject(r)
			if c.lost || c.restart {
				a.Master = h.srv.URL
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			h.sync(a)
			if got := h.taskState(id, 0); got != store.TaskCompleted {
				t.Fatalf("task %s, want completed", got)
			}
			checkExitUsage(t, h, id, start, minutes(c.wantExit), minutes(c.wantEnd))
			h.clock.Advance(time.Minute)
			h.start()
			checkExitUsage(t, h, id, start, minutes(c.wantExit), minutes(c.wantEnd))
		})
	}
}

// checkExitUsage checks that job id's one attempt, of 2 GPUs, started at
// start, ended at end and exited at exited, and that its usage records
// cover it from its start to its exit, contiguous, once: in the store,
// GET /jobs/{id}, GET /usage and the fair-share ledger.
func checkExitUsage(t *testing.T, h *harness, id int64, start, exited, end time.Time) {
	t.Helper()
	checkExitUsageOf(t, h, id, 2, start, exited, end)
}

// checkExitUsageOf is checkExitUsage for an attempt of gpus GPUs.
func checkExitUsageOf(t *testing.T, h *harness, id int64, gpus int, start, exited, end time.Time) {
	t.Helper()
	recs, err := h.st.Usage(h.ctx, store.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(recs, func(a, b store.Usage) int { return a.Start.Compare(b.Start) })
	at, sum := start, 0.0
	for _, u := range recs {
		if !u.Start.Equal(at) || u.Attempt != 1 {
			t.Fatalf("usage records %+v: not contiguous from %v", recs, start)
		}
		at, sum = u.End, sum+u.GPUSeconds
	}
	want := float64(gpus) * exited.Sub(start).Seconds()
	if !at.Equal(exited) || math.Abs(sum-want) > 1e-6 {
		t.Fatalf("usage records %+v: up to %v, %v GPU-seconds; want up to %v, %v", recs, at, sum, exited, want)
	}
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
	if err != nil || len(atts) != 1 || !atts[0].StartedAt.Equal(start) || !atts[0].ExitedAt.Equal(exited) ||
		!atts[0].EndedAt.Equal(end) {
		t.Fatalf("attempts %+v (%v), want one from %v, exited at %v, ended at %v", atts, err, start, exited, end)
	}
	if j := h.job(id); len(j.TaskList) != 1 || len(j.TaskList[0].Attempts) != 1 ||
		j.TaskList[0].Attempts[0].ExitedAt == nil || !j.TaskList[0].Attempts[0].ExitedAt.Equal(exited) {
		t.Fatalf("GET /jobs/%d: tasks %+v, want one attempt exited at %v", id, j.TaskList, exited)
	}
	var u api.Usage
	if code := h.do("GET", "/api/v1/usage?since=1d&by=user", nil, &u); code != 200 ||
		math.Abs(u.TotalGPUHours-want/3600) > 1e-6 {
		t.Fatalf("GET /usage: %d %+v, want %v GPU-hours", code, u, want/3600)
	}
	k := usageKey{"default", h.job(id).Project, "ana"}
	now := h.clock.Now().Unix()
	f := newFairShare(h.m.fair.decay)
	f.charge(k.pool, k.project, k.user, start.Unix(), exited.Unix(), want)
	f.usage.Advance(now)
	h.m.lock()
	h.m.fair.usage.Advance(now)
	got := h.m.fair.usage.Get(k)
	h.m.unlock()
	if math.Abs(got-f.usage.Get(k)) > 1e-9*f.usage.Get(k) {
		t.Fatalf("fair-share usage of ana %v, want %v", got, f.usage.Get(k))
	}
}
