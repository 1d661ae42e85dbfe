package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestStopDeadlineKeptThroughReload: the grace a preemption or a kill
// gave a task is the one its agent keeps (the command's grace_s), so a
// reload that changes the pool's grace meanwhile changes neither the
// victim's deadline in the views nor when the forecast frees its GPUs
// for the job waiting on them (the attempt's Asked and Grace,
// lifecycle.Hold.FreeBy). The views used to follow the configuration at
// each read.
func TestStopDeadlineKeptThroughReload(t *testing.T) {
	const prio = "pools:\n  - {name: default, policy: priority, preemption: true, grace: %s, kill_grace: %s}\n"
	t.Run("a preemption's checkpoint grace", func(t *testing.T) {
		withFile, path := withConfigFile(t, fmt.Sprintf(prio, "20s", "30s"))
		h := newHarness(t, withFile)
		n1 := h.agent("n1", 4)
		n1.HoldPreempt = true
		victim := h.submit(jobSpec("victim", 4, `, "time_limit": 3600, "priority": 80`))
		h.step()
		h.sync(n1, n1)
		preemptAt := h.clock.Now()
		taker := h.submit(jobSpec("taker", 4, `, "priority": 10`))
		h.step()
		h.sync(n1)
		writeConfig(t, path, fmt.Sprintf(prio, "90s", "30s"))
		if err := h.m.Reload(h.ctx); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(5 * time.Second)
		h.step()
		h.m.planner.refreshETA()
		deadline := preemptAt.Add(20 * time.Second)
		if v := h.job(victim); v.Preempting == nil || !v.Preempting.Deadline.Equal(deadline) {
			t.Fatalf("victim's preempting %+v, want the deadline %v its agent was given", v.Preempting, deadline)
		}
		if p := h.job(taker).Pending; p == nil || p.EstimatedStart == nil || !p.EstimatedStart.Equal(deadline) || p.EstimateBasis != "checkpoint" {
			t.Fatalf("taker's pending %+v, want an estimate %v, basis checkpoint", p, deadline)
		}
	})
	t.Run("a kill's kill_grace", func(t *testing.T) {
		withFile, path := withConfigFile(t, fmt.Sprintf(prio, "20s", "30s"))
		h := newHarness(t, withFile)
		a := h.agent("n1", 4)
		a.HoldKill = true
		id := h.submit(jobSpec("train", 1, ""))
		h.step()
		h.sync(a, a)
		if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
			t.Fatalf("kill: %d", code)
		}
		h.sync(a)
		writeConfig(t, path, fmt.Sprintf(prio, "20s", "3s"))
		if err := h.m.Reload(h.ctx); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(5 * time.Second)
		var j api.Job
		if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", id), nil, &j); code != 200 {
			t.Fatalf("show: %d", code)
		}
		if !strings.Contains(j.Reason, "of a kill_grace of 30s") {
			t.Fatalf("reason %q, want the kill_grace of 30s its agent was given, not the reloaded 3s", j.Reason)
		}
	})
}
