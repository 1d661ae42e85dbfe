package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// BenchmarkCreateJob measures job submissions: one job of one task per
// op, each in its own transaction, as the API's submit handler does.
// "serial" submits one at a time; "parallel" from GOMAXPROCS×4 goroutines.
// Run: go test -run '^$' -bench CreateJob -benchtime 3s ./store/
func BenchmarkCreateJob(b *testing.B) {
	benchWrites(b, []benchTarget{
		{"sqlite", func(b *testing.B) string { return "" }},
		{"sqlite-sync-normal", func(b *testing.B) string { return "sqlite://allot.db?synchronous=normal" }},
		{"postgres", func(b *testing.B) string { return benchPostgres(b, true) }},
		{"postgres-fsync-off", func(b *testing.B) string { return benchPostgres(b, false) }},
	}, "jobs/s", func(ctx context.Context, s store.Store, i int) error {
		job := store.Job{Name: fmt.Sprintf("bench-%d", i), Kind: store.KindCommand, Project: "p",
			User: "u", Pool: "default", Priority: 42, Weight: 1, Slots: 1, Entrypoint: "echo hi",
			Spec: []byte(`{"name":"bench","entrypoint":"echo hi","resources":{"slots":1}}`)}
		_, err := s.CreateJob(ctx, job, make([]store.Task, 1))
		return err
	})
}

// benchTarget is a store a write benchmark runs on.
type benchTarget struct {
	name string
	dsn  func(b *testing.B) string
}

// benchWrites runs write on each target, serial (i counting) and from
// GOMAXPROCS×4 goroutines (i 0), reporting writes a second as unit.
func benchWrites(b *testing.B, targets []benchTarget, unit string, write func(ctx context.Context, s store.Store, i int) error) {
	for _, target := range targets {
		for _, parallel := range []bool{false, true} {
			name := target.name + "/serial"
			if parallel {
				name = target.name + "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				s, err := store.Open(ctx, target.dsn(b), b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				b.ResetTimer()
				if !parallel {
					for i := 0; i < b.N; i++ {
						if err := write(ctx, s, i); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					b.SetParallelism(4)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if err := write(ctx, s, 0); err != nil {
								b.Error(err)
							}
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
			})
		}
	}
}

// benchPostgres starts a server of the benchmark's own; durable keeps
// fsync on, as in production.
func benchPostgres(b *testing.B, durable bool) string {
	dsn, err := pgtest.Start(b, pgtest.Options{Durable: durable}).NewSchema()
	if err != nil {
		b.Fatal(err)
	}
	return dsn
}

// BenchmarkUpdate measures the smallest write transaction, the store's
// probe (Ping: one upsert in an Update, BEGIN and COMMIT around it), which
// shows what every Update pays besides its own statements: on PostgreSQL,
// the master lock's gate and the fencing check (pglock.go).
// Run: go test -run '^$' -bench Update -benchtime 3s ./store/
func BenchmarkUpdate(b *testing.B) {
	at := time.Unix(1, 0)
	benchWrites(b, []benchTarget{
		{"postgres", func(b *testing.B) string { return benchPostgres(b, true) }},
		{"postgres-fsync-off", func(b *testing.B) string { return benchPostgres(b, false) }},
	}, "tx/s", func(ctx context.Context, s store.Store, _ int) error { return s.Ping(ctx, at) })
}
