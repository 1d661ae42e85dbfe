package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEventCauseBackfill: migration 0014 reads the cause and part-ran
// mark of the events written before it off their reasons, in both
// dialects. The events are written with the reasons of then and no
// cause, and the migration's UPDATE statements run again over them.
func TestEventCauseBackfill(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, m, job := backfillFixture(t, b.dsn(t), 14, "event_cause")
			reasons := []string{
				"node n1 does not run attempt 2",
				"node n1 does not run attempt 1 (a part of it ran)",
				"node n2 lost (a part of it ran)",
				"node n2 lost",
				"preempted",
			}
			for i, r := range reasons {
				if _, err := s.w.ExecContext(ctx, s.d.q(`INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason)
					VALUES (?, ?, 1, 'starting', 'queued', ?, ?)`), job.ID, i, time.Now().UnixNano(), r); err != nil {
					t.Fatal(err)
				}
			}
			runUpdates(t, s, m)
			evs, err := s.Events(ctx, EventFilter{JobID: job.ID})
			if err != nil {
				t.Fatal(err)
			}
			want := []struct {
				cause   Cause
				partRan bool
			}{{CauseNotRun, false}, {CauseNotRun, true}, {"", true}, {"", false}, {"", false}}
			evs = evs[1:] // the submission's
			if len(evs) != len(want) {
				t.Fatalf("%d events, want %d", len(evs), len(want))
			}
			for i, e := range evs {
				if e.Cause != want[i].cause || e.PartRan != want[i].partRan {
					t.Errorf("%q: cause %q, part ran %v; want %q, %v", e.Reason, e.Cause, e.PartRan, want[i].cause, want[i].partRan)
				}
			}
		})
	}
}

// backfillFixture opens a store on dsn with one job to write old events
// of, and returns migration version, checked to be name, whose UPDATE
// statements the test runs again over them (runUpdates).
func backfillFixture(t *testing.T, dsn string, version int, name string) (*sqlStore, migration, Job) {
	t.Helper()
	s := openRaw(t, dsn, t.TempDir())
	ms, err := loadMigrations(s.d)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[version-1]
	if m.name != name {
		t.Fatalf("migration %d is %s, want %s", version, m.name, name)
	}
	job, err := s.CreateJob(context.Background(), Job{Name: "old", Kind: KindCommand, Project: "p", User: "u", Pool: "default",
		Priority: 42, Weight: 1, Slots: 1, Entrypoint: "true"}, make([]Task, 1))
	if err != nil {
		t.Fatal(err)
	}
	return s, m, job
}

// runUpdates runs migration m's UPDATE statements (its backfill) again.
func runUpdates(t *testing.T, s *sqlStore, m migration) {
	t.Helper()
	for _, stmt := range strings.Split(m.sql, ";") {
		if stmt = strings.TrimSpace(stripComments(stmt)); strings.HasPrefix(stmt, "UPDATE") {
			if _, err := s.w.ExecContext(context.Background(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
	}
}
