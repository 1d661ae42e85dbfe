package master

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestDryRun: POST /jobs?dry_run=true answers what a submission would get
// (start now; wait, with the reason and the forecast's estimate; or the
// submission's own refusal), with nothing stored and nothing audited.
func TestDryRun(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n  - {name: empty, policy: fifo}\n")
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 4)
	h.submit(jobSpec("running", 2, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	h.step()
	jobsBefore, _ := h.st.Jobs(h.ctx, storeJobFilter())
	auditBefore, _ := h.st.Audit(h.ctx, store.AuditFilter{})
	if len(auditBefore) == 0 {
		t.Fatal("the submission left no audit entry: the audit check below would prove nothing")
	}
	now := h.clock.Now().UTC().Truncate(time.Second)
	ok := []struct {
		name      string
		spec      string
		startsNow bool
		reason    string
		estimate  time.Duration // from now; 0 for none
		position  int
	}{
		{"would start now", jobSpec("fits", 2, `, "time_limit": 60`), true, "", 0, 1},
		{"would wait with a reason and estimate", jobSpec("big", 4, `, "time_limit": 60`), false, "no_capacity", time.Hour, 1},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			var d api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", tt.spec, &d); code != 200 {
				t.Fatalf("status %d, want 200", code)
			}
			if !d.Accepted || d.StartsNow != tt.startsNow || d.Position != tt.position || d.Pool != "default" || d.Summary == "" {
				t.Fatalf("dry run %+v, want accepted, starts now %v, position %d", d, tt.startsNow, tt.position)
			}
			if d.TimeLimitS != 60 {
				t.Errorf("time limit %d s, want the file's 60 as the master read it", d.TimeLimitS)
			}
			if tt.startsNow {
				if d.Pending != nil {
					t.Fatalf("pending %+v for a job that starts now", d.Pending)
				}
				return
			}
			if d.Pending == nil || d.Pending.Reason != tt.reason {
				t.Fatalf("pending %+v, want reason %s", d.Pending, tt.reason)
			}
			if d.Pending.EstimatedStart == nil || !d.Pending.EstimatedStart.Equal(now.Add(tt.estimate)) ||
				d.Pending.EstimateBasis != "forecast" {
				t.Fatalf("estimate %v (%s), want %v from the forecast", d.Pending.EstimatedStart, d.Pending.EstimateBasis, now.Add(tt.estimate))
			}
		})
	}
	runBad(t, h, []badCase{
		{"refused like a submission: unknown pool", "POST", "/api/v1/jobs?dry_run=true",
			`{"name": "x", "entrypoint": "e", "pool": "cpu"}`, 400, "pool"},
		{"refused like a submission: infeasible", "POST", "/api/v1/jobs?dry_run=true", jobSpec("huge", 8, ""), 422, "resources.slots"},
		{"refused like a submission: bad file", "POST", "/api/v1/jobs?dry_run=true", jobSpec("x", -2, ""), 400, "resources.slots"},
		{"malformed dry_run", "POST", "/api/v1/jobs?dry_run=maybe", jobSpec("x", 1, ""), 400, "dry_run"},
	})
	t.Run("infeasible allowed waits with the core's reason", func(t *testing.T) {
		var d api.DryRun
		if code := h.do("POST", "/api/v1/jobs?dry_run=true&allow_infeasible=true", jobSpec("huge", 8, ""), &d); code != 200 {
			t.Fatalf("status %d, want 200", code)
		}
		if d.StartsNow || d.Pending == nil || d.Pending.Reason == "" {
			t.Fatalf("dry run %+v, want a pending reason", d)
		}
	})
	t.Run("a pool no node joined waits for nodes", func(t *testing.T) {
		var d api.DryRun
		if code := h.do("POST", "/api/v1/jobs?dry_run=true", `{"name": "x", "entrypoint": "e", "pool": "empty", "resources": {"slots": 1}}`, &d); code != 200 {
			t.Fatalf("status %d, want 200", code)
		}
		if d.StartsNow || d.Pending == nil || d.Pool != "empty" {
			t.Fatalf("dry run %+v, want it waiting in pool empty", d)
		}
	})
	t.Run("nothing stored or audited", func(t *testing.T) {
		jobs, _ := h.st.Jobs(h.ctx, storeJobFilter())
		audit, _ := h.st.Audit(h.ctx, store.AuditFilter{})
		if len(jobs) != len(jobsBefore) || len(audit) != len(auditBefore) {
			t.Fatalf("%d jobs and %d audit entries after dry runs, want %d and %d",
				len(jobs), len(audit), len(jobsBefore), len(auditBefore))
		}
		h.m.lock()
		live := len(h.m.jobs)
		h.m.mu.Unlock()
		if live != len(jobsBefore) {
			t.Fatalf("%d jobs in the mirror, want %d", live, len(jobsBefore))
		}
		if n := len(h.job(jobsBefore[0].ID).TaskList); n != 1 {
			t.Fatalf("the running job has %d tasks", n)
		}
	})
}

// TestDryRunPosition: a dry run's place in a waiting queue comes after
// the jobs of the same rank, before those ranked after it.
func TestDryRunPosition(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: priority}\n")
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 2)
	h.submit(jobSpec("running", 2, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	h.submit(jobSpec("urgent", 2, `, "priority": 2`))
	h.submit(jobSpec("late", 2, `, "priority": 9`))
	h.step()
	tests := []struct {
		name     string
		priority int
		want     int
	}{
		{"before a less urgent job", 5, 2},
		{"after one of the same priority", 2, 2},
		{"first of all", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d api.DryRun
			spec := jobSpec("x", 2, `, "priority": `+strconv.Itoa(tt.priority))
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", spec, &d); code != 200 {
				t.Fatalf("status %d", code)
			}
			if d.Position != tt.want || d.Queued != 2 {
				t.Fatalf("position %d of %d, want %d of 2", d.Position, d.Queued, tt.want)
			}
		})
	}
}

// TestDryRunPreempts: a job that would preempt its way in waits for its
// victims' checkpoints, and its estimate counts their slots as freed, as
// the live forecast does once the preemptions are under way; before,
// the forecast saw the victims run on without a time limit and gave no
// estimate.
func TestDryRunPreempts(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	h.submit(jobSpec("victim", 2, `, "priority": 80, "preemptible": true`))
	h.step()
	h.sync(a, a)
	h.step()
	now := h.clock.Now().UTC().Truncate(time.Second)
	var d api.DryRun
	if code := h.do("POST", "/api/v1/jobs?dry_run=true", jobSpec("urgent", 2, `, "priority": 10`), &d); code != 200 {
		t.Fatalf("status %d, want 200", code)
	}
	if !d.Accepted || d.StartsNow || d.Pending == nil || d.Pending.Reason != "checkpointing" {
		t.Fatalf("dry run %+v (pending %+v), want accepted, waiting for checkpoints", d, d.Pending)
	}
	if d.Pending.EstimatedStart == nil || !d.Pending.EstimatedStart.Equal(now) || d.Pending.EstimateBasis != "forecast" {
		t.Fatalf("estimate %v (%s), want %v from the forecast", d.Pending.EstimatedStart, d.Pending.EstimateBasis, now)
	}
	want := []api.DryRunVictim{{Job: 1, Name: "victim", Tasks: 1, Slots: 2, Why: "priority 10 runs before the preempted job's 80"}}
	if len(d.Preempts) == 1 {
		d.Preempts[0].User = "" // the harness's submitter
	}
	if !reflect.DeepEqual(d.Preempts, want) {
		t.Fatalf("preempts %+v, want %+v", d.Preempts, want)
	}
	if !strings.Contains(d.Summary, "It would preempt 1 task of 1 running job and start once their checkpoints have landed") {
		t.Fatalf("summary %q, want it to name the preemption", d.Summary)
	}
	if got := h.taskState(1, 0); got != "running" {
		t.Fatalf("the victim is %s after the dry run, want running", got)
	}
}

// TestEstimateWords: a dry run's summary gives a forecast's range, both
// ends, as the tables write times, not the late end alone in RFC 3339.
func TestEstimateWords(t *testing.T) {
	late := time.Date(2026, 11, 27, 16, 41, 8, 0, time.UTC)
	early := late.Add(-7 * time.Minute)
	for _, c := range []struct {
		name string
		p    api.Pending
		want string
	}{
		{"a range", api.Pending{EstimatedStart: &late, EstimatedStartEarliest: &early, EstimateBasis: "forecast"},
			"2026-11-27 16:34:08 UTC to 2026-11-27 16:41:08 UTC (forecast)"},
		{"one end", api.Pending{EstimatedStart: &late, EstimateBasis: "reservation"}, "2026-11-27 16:41:08 UTC (reservation)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := estimateWords(&c.p); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
