package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// Target names a database for store.Open.
type Target struct {
	DSN     string
	DataDir string
}

// Run runs the whole suite; fresh must return a new, empty database each
// time it is called.
func Run(t *testing.T, fresh func(t *testing.T) Target) {
	cases := []struct {
		name string
		fn   func(t *testing.T, target Target)
	}{
		{"CreateJobRoundTrip", testCreateJobRoundTrip},
		{"CreateJobRejects", testCreateJobRejects},
		{"CreateJobIsAtomic", testCreateJobIsAtomic},
		{"UpdateRollsBack", testUpdateRollsBack},
		{"JobTransitions", testJobTransitions},
		{"MoveJobEnd", testMoveJobEnd},
		{"UpdateJob", testUpdateJob},
		{"UpdateJobLimits", testUpdateJobLimits},
		{"HoldJob", testHoldJob},
		{"TaskLifecycleNumbersAttempts", testTaskLifecycle},
		{"TaskTransitionRejects", testTaskTransitionRejects},
		{"ReservedRestart", testReservedRestart},
		{"AttemptExited", testAttemptExited},
		{"AttemptStartPriority", testAttemptStartPriority},
		{"AttemptCheckpoint", testAttemptCheckpoint},
		{"AmendLostEnd", testAmendLostEnd},
		{"AmendLostEndJobEnd", testAmendLostEndJobEnd},
		{"RecordPartExits", testRecordPartExits},
		{"NoteLostExit", testNoteLostExit},
		{"NoteLeftEnded", testNoteLeftEnded},
		{"TaskNote", testTaskNote},
		{"ListJobsFilters", testListJobs},
		{"ListJobsSinceOutOfOrder", testJobsSinceOutOfOrder},
		{"EventsOfOneUpdateInOrder", testEventsOfOneUpdateInOrder},
		{"AttemptsOfOneUpdate", testAttemptsOfOneUpdate},
		{"ListTasksAndAttempts", testListTasksAndAttempts},
		{"JobRecords", testJobRecords},
		{"Logs", testLogs},
		{"Nodes", testNodes},
		{"NodeDrain", testNodeDrain},
		{"NodeReshaped", testNodeReshaped},
		{"NodeMoves", testNodeMoves},
		{"NodeLeaving", testNodeLeaving},
		{"NodeStayed", testNodeStayed},
		{"Usage", testUsage},
		{"PruneJobs", testPruneJobs},
		{"Reservations", testReservations},
		{"Marks", testMarks},
		{"Outages", testOutages},
		{"ConfigChanges", testConfigChanges},
		{"Events", testEvents},
		{"EventCause", testEventCause},
		{"EventForJob", testEventForJob},
		{"JobChange", testJobChange},
		{"Metrics", testMetrics},
		{"ReopenKeepsEverything", testReopen},
		{"ConcurrentCreates", testConcurrentCreates},
		{"ConcurrentStartsOneWins", testConcurrentStarts},
		{"ConcurrentCyclesLoseNothing", testConcurrentCycles},
		{"ConcurrentUpdatesIsolateFailures", testConcurrentUpdatesIsolateFailures},
		{"CanceledUpdate", testCanceledUpdate},
		{"UsersAndRoles", testUsersAndRoles},
		{"Credentials", testCredentials},
		{"Audit", testAudit},
		{"AuthInUpdate", testAuthInUpdate},
		{"Ping", testPing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, fresh(t)) })
	}
}

// t0 is the suite's clock origin; every time is t0 plus an offset, with
// nanoseconds, so that round trips are checked to the nanosecond.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// open opens the target and closes it when the test ends.
func open(t *testing.T, target Target) store.Store {
	t.Helper()
	s, err := store.Open(ctxOf(t), target.DSN, target.DataDir)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

// reopen closes s and opens the target again, as a master restarting on
// the same database does: a second store beside an open one is refused
// on PostgreSQL (the master lock).
func reopen(t *testing.T, target Target, s store.Store) store.Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("close store: %v", err)
	}
	return open(t, target)
}

// sampleJob has every field set.
func sampleJob(name string) store.Job {
	return store.Job{
		Name: name, Kind: store.KindExperiment, Project: "vision", User: "ada", Pool: "a100",
		Priority: 42, PriorityClass: "NORMAL", Weight: 1.5, Preemptible: true,
		Slots: 2, MaxConcurrent: 4, MaxSlots: 8, TimeLimit: 90 * time.Minute,
		Entrypoint:  "python train.py --epochs 3",
		Environment: map[string]string{"LR": "0.1", "SEED": "7"},
		Spec:        json.RawMessage(`{"name": "` + name + `", "resources": {"slots": 2}}`),
		SubmittedAt: at(time.Second),
	}
}

func sampleTasks(n int) []store.Task {
	tasks := make([]store.Task, n)
	for i := range tasks {
		tasks[i] = store.Task{
			Hyperparameters: json.RawMessage(fmt.Sprintf(`{"lr": 0.%d, "layers": [1, 2]}`, i+1)),
			CheckpointDir:   fmt.Sprintf("/ckpt/%d", i),
		}
	}
	return tasks
}

func mustCreate(t *testing.T, s store.Store, job store.Job, tasks int) store.Job {
	t.Helper()
	j, err := s.CreateJob(ctxOf(t), job, sampleTasks(tasks))
	if err != nil {
		t.Fatalf("create job %q: %v", job.Name, err)
	}
	return j
}

func placement(node string, gpus ...int) []store.Placement {
	p := store.Placement{Node: node}
	for _, g := range gpus {
		p.GPUs = append(p.GPUs, store.GPURef{Index: g, UUID: fmt.Sprintf("GPU-%s-%d", node, g)})
	}
	return []store.Placement{p}
}

// move applies a task transition and fails the test if it does not work.
func move(t *testing.T, tx store.Tx, tr store.TaskTransition) store.Task {
	t.Helper()
	task, err := tx.TransitionTask(ctxOf(t), tr)
	if err != nil {
		t.Fatalf("transition %s → %s: %v", tr.From, tr.To, err)
	}
	return task
}

func wantErr(t *testing.T, err, target error, doing string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want one matching %v", doing, err, target)
	}
}

func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func intp(v int) *int { return &v }
