package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// The crash tests kill -9 a process that writes to the store, and check
// that every write it acknowledged survives and nothing is half-written.

const (
	envCrashDSN = "ALLOT_STORE_CRASH_WRITER_DSN"
	envCrashDir = "ALLOT_STORE_CRASH_WRITER_DIR"
	// crashTasks is the number of tasks of every job the writers create.
	crashTasks = 3
)

// runCrashWriter is the child process: it writes units until killed and
// prints "ACK <job id>" after each one commits.
func runCrashWriter() {
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv(envCrashDSN), os.Getenv(envCrashDir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash writer:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		id, err := writeUnit(ctx, s, i)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash writer:", err)
			os.Exit(3)
		}
		fmt.Fprintf(out, "ACK %d\n", id)
		out.Flush()
	}
}

// writeUnit creates a job, starts its first task and records usage, all
// in one transaction, then logs a line in another; it returns the job id
// once both have committed.
func writeUnit(ctx context.Context, s store.Store, i int) (int64, error) {
	var id int64
	err := s.Update(ctx, func(tx store.Tx) error {
		job, err := tx.CreateJob(ctx, store.Job{Name: fmt.Sprintf("unit-%d", i), Kind: store.KindCommand,
			Project: "p", User: "u", Pool: "default", Priority: 42, Weight: 1, Slots: 1, Entrypoint: "true"},
			make([]store.Task, crashTasks))
		if err != nil {
			return err
		}
		id = job.ID
		_, err = tx.TransitionTask(ctx, store.TaskTransition{JobID: id, From: store.TaskQueued, To: store.TaskStarting,
			Placement: []store.Placement{{Node: "n1", GPUs: []store.GPURef{{Index: 0}}}}})
		if err != nil {
			return err
		}
		_, err = tx.RecordUsage(ctx, store.Usage{Pool: "default", JobID: id, Attempt: 1,
			Start: time.Unix(0, 0), End: time.Unix(1, 0), GPUSeconds: 1})
		return err
	})
	if err != nil {
		return 0, err
	}
	err = s.AppendLogs(ctx, []store.LogLine{{JobID: id, Attempt: 1, Seq: 1, Stream: store.Stdout, Text: "hello"}})
	return id, err
}

// checkConsistent reopens nothing: it reads s and checks that every acked
// job is whole, and that no job at all is half-written.
func checkConsistent(t *testing.T, s store.Store, acked []int64) {
	t.Helper()
	ctx := context.Background()
	// The pool may still hold a connection that the killed server told
	// it was terminated (SQLSTATE 57P01), which fails its next query
	// once; a caller (the master) takes that as a failed read and reads
	// again, as this does a few times.
	var jobs []store.Job
	var err error
	for try := 0; try < 5; try++ {
		if jobs, err = s.Jobs(ctx, store.JobFilter{}); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	tasks, err1 := s.Tasks(ctx, store.TaskFilter{})
	attempts, err2 := s.Attempts(ctx, store.AttemptFilter{})
	usage, err3 := s.Usage(ctx, store.UsageFilter{})
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatalf("read store: %v %v %v", err1, err2, err3)
	}
	perJob := map[int64]int{}
	for _, task := range tasks {
		perJob[task.JobID]++
	}
	started, used := map[int64]bool{}, map[int64]bool{}
	for _, a := range attempts {
		started[a.JobID] = true
	}
	for _, u := range usage {
		used[u.JobID] = true
	}
	present := map[int64]bool{}
	for _, j := range jobs {
		present[j.ID] = true
		if perJob[j.ID] != crashTasks || !started[j.ID] || !used[j.ID] {
			t.Fatalf("job %d is half-written: %d tasks, started %v, usage %v", j.ID, perJob[j.ID], started[j.ID], used[j.ID])
		}
	}
	for _, id := range acked {
		if !present[id] {
			t.Fatalf("acknowledged job %d was lost (%d acknowledged, %d stored)", id, len(acked), len(jobs))
		}
		lines, err := s.Logs(ctx, store.LogQuery{JobID: id})
		if err != nil || len(lines) != 1 {
			t.Fatalf("acknowledged job %d has %d log lines (error %v), want 1", id, len(lines), err)
		}
	}
}

// killWriter starts the writer child, lets it acknowledge at least want
// units, kills it with SIGKILL and returns every unit it acknowledged.
func killWriter(t *testing.T, dsn, dir string, want int) []int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrashDSN+"="+dsn, envCrashDir+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start writer: %v", err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var acked []int64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		id, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "ACK "), 10, 64)
		if err != nil {
			t.Fatalf("writer said %q", sc.Text())
		}
		acked = append(acked, id)
		if len(acked) == want {
			cmd.Process.Kill() // SIGKILL, mid-write of the next unit
		}
	}
	cmd.Wait()
	if len(acked) < want {
		t.Fatalf("writer acknowledged %d units before dying, want %d; stderr:\n%s", len(acked), want, stderr.String())
	}
	return acked
}

func TestKilledWriterLosesNothing(t *testing.T) {
	cases := []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dsn, dir := c.dsn(t), t.TempDir()
			acked := killWriter(t, dsn, dir, 25)
			acked = append(acked, killWriter(t, dsn, dir, 25)...) // and once more, after recovery
			s, err := store.Open(context.Background(), dsn, dir)
			if err != nil {
				t.Fatalf("reopen after crash: %v", err)
			}
			defer s.Close()
			checkConsistent(t, s, acked)
		})
	}
}

// TestKilledPostgresLosesNothing crashes the database server itself under
// a writer, restarts it, and checks that the same Store carries on.
func TestKilledPostgresLosesNothing(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	dsn, err := srv.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, dsn, "")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	acked := make(chan int64, 1000)
	failed := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			id, err := writeUnit(ctx, s, i)
			if err != nil {
				failed <- err
				return
			}
			acked <- id
		}
	}()
	var ids []int64
	for len(ids) < 30 {
		ids = append(ids, <-acked)
	}
	if err := srv.Kill(); err != nil {
		t.Fatalf("kill postgres: %v", err)
	}
	writeErr := <-failed
	close(acked)
	for id := range acked {
		ids = append(ids, id)
	}
	if writeErr == nil {
		t.Fatal("the writer saw no error while the database was down")
	}
	if err := srv.Restart(); err != nil {
		t.Fatalf("restart postgres: %v", err)
	}
	checkConsistent(t, s, ids)
	if _, err := writeUnit(ctx, s, -1); err != nil {
		t.Fatalf("writing after the database restarted: %v", err)
	}
}
