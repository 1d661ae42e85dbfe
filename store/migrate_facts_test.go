package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEventFactsBackfill: migration 0015 reads the causes of the task
// transitions and the values of the job changes written before it off
// their reasons, as the master's readers read them then, in both
// dialects. The events are written with the reasons of then and no
// facts, and the migration's UPDATE statements run again over them.
func TestEventFactsBackfill(t *testing.T) {
	type old struct {
		idx      int
		from, to string
		reason   string
		cause    Cause
		change   string // showChange of the change read
	}
	const why = ": a node of its new placement is down"
	events := []old{
		{0, "running", "failed", "could not start on node n1: chdir /x: no such file or directory", CauseStartFailed, ""},
		{0, "running", "killing", "could not start on node n2: no GPU 3", CauseStartFailed, ""},
		{0, "killing", "failed", "could not start on node n2: no GPU 3", CauseStartFailed, ""},
		{0, "killing", "killed", "could not start on node n2: no GPU 3", "", ""}, // a restart found it killing
		{0, "running", "failed", "Could not start on node n1", "", ""},
		{0, "running", "failed", "the part on node n1 failed with exit code 1", "", ""},
		{0, "running", "preempting", "moving to make room for job 7", CauseMoved, ""},
		{0, "running", "preempting", "resizing to 4 slots", CauseResized, ""},
		{0, "running", "preempting", "preempted for job 7", "", ""},
		{0, "preempting", "preempted", "checkpointed to move", "", ""},
		{0, "running", "killing", "time limit of 1h0m0s reached", CauseTimeLimit, ""},
		{0, "killing", "killed", "time limit of 1h0m0s reached", CauseTimeLimit, ""},
		{0, "running", "killing", "killed by ada: time limit of 1h0m0s reached", "", ""},
		{0, "preempted", "queued", "requeued: a node of its new placement is down", CauseUnplaced, ""},
		{0, "preempted", "failed", "preempted 3 times, max_retries 2" + why, CauseUnplaced, ""},
		{0, "preempted", "queued", "requeued after preemption", "", ""},
		{0, "starting", "queued", "node n1 does not run attempt 2", CauseNotRun, ""}, // 0014's, kept
		{-1, "queued", "queued", `priority 40 → 10, priority class "NORMAL" → "HIGH": changed through the API`, "", "40→10 -→- -→-"},
		{-1, "queued", "queued", "weight 1 → 2.5: changed through the API", "", "-→- 1→2.5 -→-"},
		{-1, "running", "running", "priority 40 → 45, weight 0.5 → 3", "", "40→45 0.5→3 -→-"},
		{-1, "queued", "queued", `priority 40 → 80, priority class "NORMAL" → "LOW", preemptible false → true: changed through the API`,
			"", "40→80 -→- false→true"},
		{-1, "queued", "queued", "preemptible true → false: x", "", "-→- -→- true→false"},
		{-1, "queued", "queued", "weight 1e-07 → 1e+06: weight 5 → 6", "", "-→- 1e-07→1e+06 -→-"},
		{-1, "queued", "queued", "weight 0.1 → 0.3", "", "-→- 0.1→0.3 -→-"},
		{-1, "queued", "queued", `priority class "NORMAL" → "HIGH"`, "", ""},
		{-1, "queued", "queued", `priority class "HIGH" → "NORMAL": priority 10 → 40, weight 1 → 2, preemptible true → false`, "", ""},
		{-1, "queued", "running", "priority 40 → 10", "", ""}, // not a change: a transition
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, m, job := backfillFixture(t, b.dsn(t), 15, "event_facts")
			for _, e := range events {
				var c string
				if strings.Contains(e.reason, " does not run attempt ") {
					c = string(CauseNotRun) // as 0014 left it
				}
				if _, err := s.w.ExecContext(ctx, s.d.q(`INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason, cause)
					VALUES (?, ?, 1, ?, ?, ?, ?, ?)`), job.ID, e.idx, e.from, e.to, time.Now().UnixNano(), e.reason, c); err != nil {
					t.Fatal(err)
				}
			}
			runUpdates(t, s, m)
			evs, err := s.Events(ctx, EventFilter{JobID: job.ID})
			if err != nil {
				t.Fatal(err)
			}
			evs = evs[1:] // the submission's
			if len(evs) != len(events) {
				t.Fatalf("%d events, want %d", len(evs), len(events))
			}
			for i, e := range evs {
				if got := showChange(e.Change); e.Cause != events[i].cause || got != events[i].change {
					t.Errorf("%s → %s %q: cause %q, change %q; want %q, %q", e.From, e.To, e.Reason, e.Cause, got,
						events[i].cause, events[i].change)
				}
			}
		})
	}
}

// stripComments drops the SQL comment lines of stmt.
func stripComments(stmt string) string {
	var keep []string
	for _, l := range strings.Split(stmt, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// showChange writes c as "from→to" for priority, weight and
// preemptibility, "-" for a value not kept; "" for no change.
func showChange(c *JobChange) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%s→%s %s→%s %s→%s", show(c.FromPriority), show(c.ToPriority), show(c.FromWeight), show(c.ToWeight),
		show(c.FromPreemptible), show(c.ToPreemptible))
}

func show[T any](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}
