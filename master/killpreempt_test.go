package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
)

// TestKillDuringPreemption: a user's kill of a job whose task is being
// preempted leaves its agent the preemption's deadline where it comes
// before the kill's grace ends (agent.Task.Kill keeps the earlier), so
// the job's reason says that deadline, as the preempting reason did, not
// the kill_grace, and the forecast frees its GPUs by then for the job
// waiting on them (trial 2026-11-29d, D16). A kill whose grace ends first
// keeps the kill_grace's words. A master restarted during the kill says
// and forecasts the same deadline, which the store does not keep
// (restorekill.go: it counted the kill_grace in full from the kill).
func TestKillDuringPreemption(t *testing.T) {
	for _, c := range []killPreemptCase{
		{name: "the preemption's deadline first", grace: "10s", killGrace: "30s", deadline: 10 * time.Second,
			before: " (for 1s, killed at %s if not stopped by then, its preemption's deadline)",
			after:  " (for 12s, past its preemption's deadline of %s)"},
		{name: "the kill grace first", grace: "60s", killGrace: "5s", deadline: 3*time.Second + 5*time.Second,
			before: " (for 1s, of a kill_grace of 5s)", after: " (for 12s, past the kill_grace of 5s)"},
	} {
		for _, restart := range []bool{false, true} {
			name := c.name
			if restart {
				name += ", the master restarted during the kill"
			}
			t.Run(name, func(t *testing.T) { killDuringPreemption(t, c, restart) })
		}
	}
}

const (
	killPreemptPools = "pools:\n  - {name: default, policy: priority, preemption: true, grace: %s, kill_grace: %s}\n"
	killPreemptWait  = "being killed: 1 task still stopping on n1, its agent has not confirmed the end"
)

// killPreemptCase is a case of TestKillDuringPreemption: deadline is
// from the preemption; before and after are the wait's words 1s after
// the kill, and 12s.
type killPreemptCase struct {
	name, grace, killGrace string
	deadline               time.Duration
	before, after          string
}

// killDuringPreemption runs case c, the master restarted right after
// the kill where restart says so.
func killDuringPreemption(t *testing.T, c killPreemptCase, restart bool) {
	h := newHarness(t, withConfig(mustConfig(t, fmt.Sprintf(killPreemptPools, c.grace, c.killGrace))))
	n1 := h.agent("n1", 4)
	n1.HoldPreempt, n1.HoldKill = true, true // it traps SIGTERM
	victim := h.submit(jobSpec("victim", 4, `, "priority": 80, "preemptible": true`))
	h.step()
	h.sync(n1, n1)
	preemptAt := h.clock.Now()
	taker := h.submit(jobSpec("taker", 4, `, "priority": 10`))
	h.step()
	h.sync(n1)
	if v := h.job(victim); v.Preempting == nil {
		t.Fatalf("victim not being preempted: %+v", v)
	}
	h.clock.Advance(3 * time.Second)
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", victim), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.sync(n1)
	if restart {
		h.start()
		n1.Master = h.srv.URL
		if _, err := n1.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
		h.sync(n1)
	}
	deadline := preemptAt.Add(c.deadline)
	at := deadline.UTC().Format("15:04:05 UTC")
	h.clock.Advance(time.Second)
	h.step()
	h.m.planner.refreshETA()
	want := func(words string) string {
		if c.deadline == 10*time.Second {
			words = fmt.Sprintf(words, at)
		}
		return killPreemptWait + words + "; killed through the API by user:root"
	}
	if v := h.job(victim); !v.Ending || v.Reason != want(c.before) {
		t.Errorf("victim ending %v, reason %q; want %q", v.Ending, v.Reason, want(c.before))
	}
	if p := h.job(taker).Pending; p == nil || p.EstimatedStart == nil || !p.EstimatedStart.Equal(deadline) {
		t.Errorf("taker's pending %+v, want an estimate %v, when the victim's agent kills it", p, deadline)
	}
	h.clock.Advance(11 * time.Second)
	if v := h.job(victim); v.Reason != want(c.after) {
		t.Errorf("past the deadline: reason %q; want %q", v.Reason, want(c.after))
	}
	// Its agent kills it at the deadline: the taker starts.
	n1.Exit(n1.Running()[0], agent.OutcomeKilled, -1)
	h.sync(n1)
	h.step()
	if v, tk := h.job(victim), h.job(taker); v.Ending || v.State != "killed" || tk.State != "running" {
		t.Errorf("after the end: victim %s ending %v, taker %s; want killed, taker running", v.State, v.Ending, tk.State)
	}
}
