package lifecycle_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestTaskEdge pins the task graph the master's store checks and the
// Cluster's records keep to: every move between distinct states but out
// of a terminal one, and to starting only without an open attempt.
func TestTaskEdge(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to lifecycle.TaskState
		why      string // "" for an edge
	}{
		{"a start", lifecycle.TaskQueued, lifecycle.TaskStarting, ""},
		{"the simulator's start", lifecycle.TaskQueued, lifecycle.TaskRunning, ""},
		{"a restart", lifecycle.TaskPreempted, lifecycle.TaskStarting, ""},
		{"a relaunch", lifecycle.TaskPreempted, lifecycle.TaskRunning, ""},
		{"a preemption", lifecycle.TaskRunning, lifecycle.TaskPreempting, ""},
		{"a checkpoint", lifecycle.TaskPreempting, lifecycle.TaskPreempted, ""},
		{"a kill of a preempting task", lifecycle.TaskPreempting, lifecycle.TaskKilling, ""},
		{"a lost start", lifecycle.TaskStarting, lifecycle.TaskQueued, ""},
		{"a kill's end", lifecycle.TaskKilling, lifecycle.TaskKilled, ""},
		{"out of completed", lifecycle.TaskCompleted, lifecycle.TaskRunning, `"completed" is terminal`},
		{"out of killed", lifecycle.TaskKilled, lifecycle.TaskQueued, `"killed" is terminal`},
		{"no change", lifecycle.TaskRunning, lifecycle.TaskRunning, "changes nothing"},
		{"a second attempt", lifecycle.TaskRunning, lifecycle.TaskStarting, "already has an open attempt"},
		{"a start while killing", lifecycle.TaskKilling, lifecycle.TaskStarting, "already has an open attempt"},
		{"unknown from", "pending", lifecycle.TaskRunning, `"pending" is not a task state`},
		{"unknown to", lifecycle.TaskQueued, "", `"" is not a task state`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := lifecycle.TaskEdge(c.from, c.to)
			if c.why == "" {
				if err != nil {
					t.Fatalf("%s → %s refused: %v", c.from, c.to, err)
				}
				return
			}
			var ee *lifecycle.EdgeError
			if !errors.As(err, &ee) {
				t.Fatalf("%s → %s: error %v, want an *EdgeError", c.from, c.to, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.why) || !strings.Contains(msg, fmt.Sprintf("%q → %q", c.from, c.to)) {
				t.Errorf("error %q, want it to name %q → %q and say %q", msg, c.from, c.to, c.why)
			}
		})
	}
}

// TestJobEdge pins the job graph: any move between distinct states but
// out of a terminal one.
func TestJobEdge(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to lifecycle.JobState
		ok       bool
	}{
		{"a start", lifecycle.JobQueued, lifecycle.JobRunning, true},
		{"queued again", lifecycle.JobRunning, lifecycle.JobQueued, true},
		{"a kill of a queued job", lifecycle.JobQueued, lifecycle.JobKilled, true},
		{"out of failed", lifecycle.JobFailed, lifecycle.JobRunning, false},
		{"no change", lifecycle.JobQueued, lifecycle.JobQueued, false},
		{"unknown", "pending", lifecycle.JobRunning, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := lifecycle.JobEdge(c.from, c.to); (err == nil) != c.ok {
				t.Errorf("%s → %s: %v, want an edge %t", c.from, c.to, err, c.ok)
			}
		})
	}
}

// graphWatch hears every change of a Cluster's task records' State
// (lifecycle.WatchStates) and checks each against the graph, as mapped
// in lifecycle/graph.go: a record made by a launch takes its task from
// queued (a fresh task) or from the state its last record let go of its
// slots in; a draining record of a moved task is made from its task's
// running placement.
type graphWatch struct {
	// waits is each task's state between its records, by its job and
	// number; a job's record reused by a later job starts its tasks
	// fresh (Retries 0).
	waits map[[2]int32]lifecycle.TaskState
	// states is each launched task's state, its last record's that is
	// not a draining placement's, by its job and number (checkCounts).
	states map[[2]int32]lifecycle.TaskState
	seen   map[string]int // edges taken, "from → to"
	err    error          // the first change off the graph
}

func watchGraph(c *lifecycle.Cluster) *graphWatch {
	w := &graphWatch{waits: map[[2]int32]lifecycle.TaskState{}, states: map[[2]int32]lifecycle.TaskState{},
		seen: map[string]int{}}
	lifecycle.WatchStates(c, w.changed)
	return w
}

func (w *graphWatch) changed(t *lifecycle.Task, from, to lifecycle.TaskState) {
	key := [2]int32{t.Job, t.ID}
	switch {
	case from == "" && t.Moving:
		from = lifecycle.TaskRunning
	case from == "" && t.Retries == 0:
		from = lifecycle.TaskQueued
	case from == "":
		from = w.waits[key]
	}
	w.seen[string(from)+" → "+string(to)]++
	if err := lifecycle.TaskEdge(from, to); err != nil && w.err == nil {
		w.err = fmt.Errorf("task %d of job record %d (moving %t): %w", t.ID, t.Job, t.Moving, err)
	}
	if !t.Moving && !to.Active() {
		w.waits[key] = to
	}
	if !t.Moving {
		w.states[key] = to
	}
}

// check returns the first change off the graph, and an error naming the
// edges of want that the run never took.
func (w *graphWatch) check(want ...string) error {
	if w.err != nil {
		return w.err
	}
	var missing []string
	for _, e := range want {
		if w.seen[e] == 0 {
			missing = append(missing, e)
		}
	}
	if len(missing) > 0 {
		keys := make([]string, 0, len(w.seen))
		for k := range w.seen {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return fmt.Errorf("edges %q never taken (taken: %q): the run checks too little", missing, keys)
	}
	return nil
}

// TestSlowKillsOnGraph: a kill that takes its time (Task.KillAfter) takes
// its record through killing on the graph, whether a user's kill or a
// time limit's, from running or preempting (the property tests kill at
// once).
func TestSlowKillsOnGraph(t *testing.T) {
	for _, c := range []struct {
		name    string
		limit   int64
		preempt bool // the task is preempting when the kill comes
		want    []string
	}{
		{"a user's kill", 0, false, []string{"queued → running", "running → killing", "killing → killed"}},
		{"a time limit", 100, false, []string{"queued → running", "running → killing", "killing → killed"}},
		{"a user's kill while preempting", 0, true,
			[]string{"queued → running", "running → preempting", "preempting → killing", "killing → killed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Nodes = []sched.Node{{Slots: 4}}
			graph := watchGraph(&cl)
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 1,
				Fresh: 1000, Shape: lifecycle.Shape{Limit: c.limit}, Project: -1, Account: -1}, Entry: &sched.Job{Slots: 2}}).Job
			ti := cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 2}}, false, 0)
			cl.Tasks.At(ti).KillAfter = 5
			if c.preempt {
				cl.Preempt(ti, 50)
			}
			kill := lifecycle.Event{Kind: lifecycle.EventKill, Job: ji}
			if c.limit > 0 {
				kill = lifecycle.Event{Kind: lifecycle.EventEnded, Task: ti, Ver: cl.Tasks.At(ti).Ver}
			}
			if o := cl.Observe(100, kill); len(o.Killing) != 1 {
				t.Fatalf("the kill left %v killing, want the task", o.Killing)
			}
			if o := cl.Observe(105, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: cl.Tasks.At(ti).Ver}); !o.Applied {
				t.Fatal("the kill's end did not apply")
			}
			if err := graph.check(c.want...); err != nil {
				t.Error(err)
			}
			// Killed either way, and counted so (checkCounts), but only
			// the time limit's kill counted as one (Job.Timeout).
			j := &cl.Jobs[ji]
			if err := checkCounts(&cl, graph); err != nil || j.Killed != 1 || (j.Timeout == 1) != (c.limit > 0) {
				t.Errorf("killed %d, timeout %d; %v", j.Killed, j.Timeout, err)
			}
		})
	}
}

// TestGraphWatchCatches: the watch the property tests rely on reports a
// change off the graph, here a record retired twice.
func TestGraphWatchCatches(t *testing.T) {
	var cl lifecycle.Cluster
	cl.Snap.Nodes = []sched.Node{{Slots: 4}}
	graph := watchGraph(&cl)
	ji := submit(&cl, 0, lifecycle.Submission{Tasks: 1, Fresh: 100, Project: -1, Account: -1}, sched.Job{Slots: 1})
	ti := cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 1}}, false, 0)
	cl.Tasks.Retire(ti, lifecycle.TaskCompleted)
	if graph.err != nil {
		t.Fatalf("running → completed reported off the graph: %v", graph.err)
	}
	cl.Tasks.Retire(ti, lifecycle.TaskKilled)
	var ee *lifecycle.EdgeError
	if !errors.As(graph.err, &ee) || ee.From != "completed" || ee.To != "killed" {
		t.Errorf("a second retirement: %v, want completed → killed off the graph", graph.err)
	}
}
