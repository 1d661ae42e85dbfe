package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// snapshot is everything a store can be asked.
type snapshot struct {
	Jobs     []store.Job
	Tasks    []store.Task
	Attempts []store.Attempt
	Nodes    []store.Node
	Logs     []store.LogLine
	Usage    []store.Usage
	Events   []store.Event
}

func takeSnapshot(t *testing.T, s store.Store) snapshot {
	t.Helper()
	ctx := ctxOf(t)
	var sn snapshot
	var err error
	errs := make([]error, 7)
	sn.Jobs, errs[0] = s.Jobs(ctx, store.JobFilter{})
	sn.Tasks, errs[1] = s.Tasks(ctx, store.TaskFilter{})
	sn.Attempts, errs[2] = s.Attempts(ctx, store.AttemptFilter{})
	sn.Nodes, errs[3] = s.Nodes(ctx)
	sn.Usage, errs[4] = s.Usage(ctx, store.UsageFilter{})
	sn.Events, errs[5] = s.Events(ctx, store.EventFilter{})
	for _, task := range sn.Tasks {
		var lines []store.LogLine
		lines, err = s.Logs(ctx, store.LogQuery{JobID: task.JobID, Index: task.Index})
		errs[6] = errors.Join(errs[6], err)
		sn.Logs = append(sn.Logs, lines...)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return sn
}

// fill writes a little of everything.
func fill(t *testing.T, s store.Store) {
	t.Helper()
	ctx := ctxOf(t)
	job := mustCreate(t, s, sampleJob("durable"), 2)
	mustCreate(t, s, sampleJob("other"), 1)
	move(t, s, store.TaskTransition{JobID: job.ID, From: store.TaskQueued, To: store.TaskStarting,
		Placement: placement("n1", 0, 1), At: at(time.Minute)})
	move(t, s, store.TaskTransition{JobID: job.ID, From: store.TaskStarting, To: store.TaskRunning, At: at(2 * time.Minute)})
	if _, err := s.TransitionJob(ctx, store.JobTransition{ID: job.ID, From: store.JobQueued, To: store.JobRunning}); err != nil {
		t.Fatalf("start job: %v", err)
	}
	err := s.AppendLogs(ctx, []store.LogLine{
		{JobID: job.ID, Attempt: 1, Seq: 1, Time: at(3 * time.Minute), Stream: store.Stdout, Text: "epoch 1"},
		{JobID: job.ID, Attempt: 1, Seq: 2, Time: at(4 * time.Minute), Stream: store.Stderr, Text: "warning"},
	})
	if err != nil {
		t.Fatalf("append logs: %v", err)
	}
	if _, err := s.UpsertNode(ctx, store.Node{Name: "n1", Pool: "a100", Labels: map[string]string{"switch": "s1"},
		GPUs: []store.GPU{{Index: 0, UUID: "GPU-0", Type: "a100", MemoryMiB: 40960}}, HeartbeatAt: at(0)}); err != nil {
		t.Fatalf("register node: %v", err)
	}
	if _, err := s.RecordUsage(ctx, store.Usage{Project: "vision", User: "ada", Pool: "a100", JobID: job.ID,
		Attempt: 1, Start: at(time.Minute), End: at(5 * time.Minute), GPUSeconds: 480}); err != nil {
		t.Fatalf("record usage: %v", err)
	}
}

func testReopen(t *testing.T, target Target) {
	first, err := store.Open(ctxOf(t), target.DSN, target.DataDir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	fill(t, first)
	before := takeSnapshot(t, first)
	if err := first.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	second := open(t, target) // migrations run again: they must be no-ops
	after := takeSnapshot(t, second)
	wantEqual(t, "store after reopening", after, before)
	if len(before.Jobs) != 2 || len(before.Logs) != 2 || len(before.Attempts) != 1 {
		t.Fatalf("filled store holds %d jobs, %d log lines, %d attempts; want 2, 2, 1",
			len(before.Jobs), len(before.Logs), len(before.Attempts))
	}
	next := mustCreate(t, second, sampleJob("later"), 1)
	if next.ID <= before.Jobs[len(before.Jobs)-1].ID {
		t.Fatalf("job id %d after reopening, want more than %d", next.ID, before.Jobs[len(before.Jobs)-1].ID)
	}
}

// testConcurrentCreates submits jobs from several goroutines at once.
func testConcurrentCreates(t *testing.T, target Target) {
	s := open(t, target)
	const writers, each = 4, 10
	ids := make(chan int64, writers*each)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				j, err := s.CreateJob(ctxOf(t), sampleJob(fmt.Sprintf("w%d-%d", w, i)), sampleTasks(2))
				if err != nil {
					t.Errorf("create job: %v", err)
					return
				}
				ids <- j.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("job id %d given twice", id)
		}
		seen[id] = true
	}
	sn := takeSnapshot(t, s)
	if len(seen) != writers*each || len(sn.Jobs) != writers*each || len(sn.Tasks) != 2*writers*each ||
		len(sn.Events) != writers*each {
		t.Fatalf("%d ids, %d jobs, %d tasks, %d events; want %d, %d, %d, %d", len(seen), len(sn.Jobs), len(sn.Tasks),
			len(sn.Events), writers*each, writers*each, 2*writers*each, writers*each)
	}
}

// testConcurrentStarts races several appliers to start one task.
func testConcurrentStarts(t *testing.T, target Target) {
	s := open(t, target)
	job := mustCreate(t, s, sampleJob("contended"), 1)
	const racers = 6
	errs := make([]error, racers)
	var ready, wg sync.WaitGroup
	ready.Add(1)
	for r := 0; r < racers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ready.Wait()
			_, errs[r] = s.TransitionTask(ctxOf(t), store.TaskTransition{JobID: job.ID, From: store.TaskQueued,
				To: store.TaskStarting, Placement: placement(fmt.Sprintf("n%d", r), 0)})
		}()
	}
	ready.Done()
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("losing racer got %v, want ErrConflict", err)
		}
	}
	attempts, err := s.Attempts(ctxOf(t), store.AttemptFilter{JobID: job.ID})
	if won != 1 || err != nil || len(attempts) != 1 {
		t.Fatalf("%d racers won, %d attempts (error %v); want exactly 1 and 1", won, len(attempts), err)
	}
}

// testConcurrentCycles has several goroutines each run a shared task
// through start → run → preempt cycles, retrying on conflicts; every
// cycle must be counted exactly once.
func testConcurrentCycles(t *testing.T, target Target) {
	s := open(t, target)
	job := mustCreate(t, s, sampleJob("cycled"), 1)
	const workers, cycles = 3, 4
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < cycles; {
				ok, err := cycle(t, s, job.ID, fmt.Sprintf("n%d", w))
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				if ok {
					done++
				} else {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	sn := takeSnapshot(t, s)
	n := workers * cycles
	task := sn.Tasks[0]
	if task.State != store.TaskQueued || task.Attempt != n || task.Restarts != n || len(sn.Attempts) != n ||
		len(sn.Usage) != n || len(sn.Logs) != n || len(sn.Events) != 1+3*n {
		t.Fatalf("after %d cycles: task %+v, %d attempts, %d usage records, %d log lines, %d events; "+
			"want attempt %d, %d restarts, and %d, %d, %d, %d", n, task, len(sn.Attempts), len(sn.Usage),
			len(sn.Logs), len(sn.Events), n, n, n, n, n, 1+3*n)
	}
	for i, a := range sn.Attempts {
		if a.Number != i+1 || a.Open() || a.EndState != store.AttemptPreempted {
			t.Fatalf("attempt %d: %+v, want number %d, ended preempted", i, a, i+1)
		}
	}
}

// cycle starts the task if it is queued, logs a line, and preempts it
// back to queued while recording its usage in the same transaction. ok is
// false when another worker had the task.
func cycle(t *testing.T, s store.Store, jobID int64, node string) (ok bool, err error) {
	ctx := ctxOf(t)
	task, err := s.TransitionTask(ctx, store.TaskTransition{JobID: jobID, From: store.TaskQueued,
		To: store.TaskStarting, Placement: placement(node, 0)})
	if errors.Is(err, store.ErrConflict) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	n := task.Attempt
	if _, err := s.TransitionTask(ctx, store.TaskTransition{JobID: jobID, From: store.TaskStarting,
		To: store.TaskRunning, Attempt: n}); err != nil {
		return false, err
	}
	line := store.LogLine{JobID: jobID, Attempt: n, Seq: 1, Stream: store.Stdout, Text: node}
	if err := s.AppendLogs(ctx, []store.LogLine{line}); err != nil {
		return false, err
	}
	return true, s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.TransitionTask(ctx, store.TaskTransition{JobID: jobID, From: store.TaskRunning,
			To: store.TaskQueued, Attempt: n, End: &store.AttemptEnd{State: store.AttemptPreempted}}); err != nil {
			return err
		}
		_, err := tx.RecordUsage(ctx, store.Usage{Pool: "a100", JobID: jobID, Attempt: n,
			Start: at(0), End: at(time.Second), GPUSeconds: 1})
		return err
	})
}
