package store

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// historyRows is how many finished jobs BenchmarkHistoryPage stores;
// ALLOT_HISTORY_ROWS overrides it.
func historyRows(b *testing.B) int {
	if v := os.Getenv("ALLOT_HISTORY_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("ALLOT_HISTORY_ROWS=%q: expected a number >= 1000", v)
		}
		return n
	}
	return 1_000_000
}

// historyStart is when the benchmark's first job was submitted; one job
// is submitted every historyEvery after it and runs for historyRun.
var historyStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	historyEvery = 30 * time.Second
	historyRun   = 10 * time.Minute
)

// fillHistory stores n finished jobs of one task each, with their task,
// attempt and usage record, in bulk SQL (the store's own writes would
// take an hour at a million jobs): what /history reads.
func fillHistory(b *testing.B, s *sqlStore, n int) {
	ctx := context.Background()
	start, every, run := historyStart.UnixNano(), int64(historyEvery), int64(historyRun)
	seq := `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?) `
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO jobs (id, name, kind, project, user_name, pool, state, priority, weight, preemptible, slots,
			submitted_ns, ended_ns) ` + seq + `SELECT n, 'job', 'command', 'p' || (n % 20), 'u' || (n % 200), 'default',
			'completed', 42, 1, 1, 1, ? + n * ?, ? + n * ? + ? FROM seq`,
			[]any{n, start, every, start, every, run}},
		{`INSERT INTO tasks (job_id, idx, state, attempt, updated_ns) ` + seq +
			`SELECT n, 0, 'completed', 1, ? + n * ? + ? FROM seq`, []any{n, start, every, run}},
		{`INSERT INTO attempts (job_id, idx, attempt, placement, started_ns, running_ns, ended_ns, end_state, exit_code)
			` + seq + `SELECT n, 0, 1, '[{"node":"n1","gpus":[{"index":0}]}]', ? + n * ?, ? + n * ?, ? + n * ? + ?,
			'completed', 0 FROM seq`, []any{n, start, every, start, every, start, every, run}},
		{`INSERT INTO usage (project, user_name, pool, job_id, idx, attempt, start_ns, end_ns, gpu_seconds) ` + seq +
			`SELECT 'p' || (n % 20), 'u' || (n % 200), 'default', n, 0, 1, ? + n * ?, ? + n * ? + ?, 600 FROM seq`,
			[]any{n, start, every, start, every, run}},
	}
	for _, st := range stmts {
		if _, err := s.w.ExecContext(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("fill: %v", err)
		}
	}
	if _, err := s.w.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatalf("analyze: %v", err)
	}
}

// BenchmarkHistoryPage measures one page of /history (100 jobs) over a
// store of historyRows finished jobs: the jobs of a window, then their
// attempts and usage, as master.history reads them. "recent" is the last
// day, "old" a day in the middle of the store, "user" the last week of one
// of 200 users.
//
//	go test -run '^$' -bench HistoryPage -benchtime 200x ./store/
func BenchmarkHistoryPage(b *testing.B) {
	n := historyRows(b)
	s, err := Open(context.Background(), "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	began := time.Now()
	fillHistory(b, s.(*sqlStore), n)
	b.Logf("filled %d jobs in %s", n, time.Since(began).Round(time.Millisecond))
	end := historyStart.Add(time.Duration(n) * historyEvery)
	mid := historyStart.Add(time.Duration(n/2) * historyEvery)
	for _, c := range []struct {
		name         string
		since, until time.Time
		user         string
	}{
		{"recent", end.Add(-24 * time.Hour), end.Add(time.Hour), ""},
		{"old", mid, mid.Add(24 * time.Hour), ""},
		{"user", end.Add(-7 * 24 * time.Hour), end.Add(time.Hour), "u7"},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				jobs, err := s.Jobs(ctx, JobFilter{SubmittedBefore: c.until, ActiveSince: c.since, User: c.user, Limit: 100})
				if err != nil || len(jobs) == 0 {
					b.Fatalf("jobs: %d, %v", len(jobs), err)
				}
				from, to := jobs[0].ID, jobs[len(jobs)-1].ID
				var ids []int64 // as master.history: a sparse page names its jobs
				if int(to-from) > 2*len(jobs) {
					for _, j := range jobs {
						ids = append(ids, j.ID)
					}
				}
				if _, err := s.Attempts(ctx, AttemptFilter{FromJobID: from, ToJobID: to, JobIDs: ids}); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Usage(ctx, UsageFilter{FromJobID: from, ToJobID: to, JobIDs: ids, Limit: 10000}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJobsSince measures one page of GET /jobs?since= (100 jobs,
// newest first, the finished ones the store lists) over historyRows
// finished jobs: "hour" asks for the last hour (120 jobs), "empty" for
// a time after the last submission (no job: the case that read the whole
// table before jobs_submitted), "old" for the second half of the store
// (a full page at once).
//
//	go test -run '^$' -bench JobsSince -benchtime 200x ./store/
func BenchmarkJobsSince(b *testing.B) {
	n := historyRows(b)
	s, err := Open(context.Background(), "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fillHistory(b, s.(*sqlStore), n)
	end := historyStart.Add(time.Duration(n) * historyEvery)
	for _, c := range []struct {
		name  string
		since time.Time
		want  int
	}{
		{"hour", end.Add(-time.Hour), 100},
		{"empty", end.Add(time.Hour), 0},
		{"old", historyStart.Add(time.Duration(n/2) * historyEvery), 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			f := JobFilter{States: []JobState{JobCompleted, JobFailed, JobKilled}, SubmittedSince: c.since,
				Desc: true, Limit: 100}
			for i := 0; i < b.N; i++ {
				jobs, err := s.Jobs(ctx, f)
				if err != nil || len(jobs) != c.want {
					b.Fatalf("jobs: %d, %v; want %d", len(jobs), err, c.want)
				}
			}
		})
	}
}
