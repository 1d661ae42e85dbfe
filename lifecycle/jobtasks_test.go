package lifecycle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
)

// allTaskStates lists every task state, for walks over the graph.
var allTaskStates = []lifecycle.TaskState{lifecycle.TaskQueued, lifecycle.TaskStarting, lifecycle.TaskRunning,
	lifecycle.TaskPreempting, lifecycle.TaskKilling, lifecycle.TaskPreempted, lifecycle.TaskCompleted,
	lifecycle.TaskFailed, lifecycle.TaskKilled}

// scanTasks counts tasks in states as a job's tasks say of it, written
// out here apart from JobTasks: those with an open attempt (graph.go:
// starting, running, preempting, killing) hold slots; completed, failed
// and killed ones have ended; queued and preempted ones wait.
// Killing ones are counted apart too.
func scanTasks(states []lifecycle.TaskState) lifecycle.JobTasks {
	s := lifecycle.JobTasks{Tasks: len(states)}
	for _, st := range states {
		switch st {
		case lifecycle.TaskStarting, lifecycle.TaskRunning, lifecycle.TaskPreempting:
			s.Active++
		case lifecycle.TaskKilling:
			s.Active++
			s.Killing++
		case lifecycle.TaskCompleted:
			s.Ended++
		case lifecycle.TaskFailed:
			s.Ended++
			s.Failed++
		case lifecycle.TaskKilled:
			s.Ended++
			s.Killed++
		}
	}
	return s
}

// TestJobTasksMove walks a job's tasks over the graph at random, each
// change counted by Move as both drivers count theirs, and checks after
// each that the counts are what a scan of the tasks' states says.
func TestJobTasksMove(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			states := make([]lifecycle.TaskState, 1+rng.IntN(6))
			var count lifecycle.JobTasks
			for i := range states {
				// A restarted master reads its tasks back in any state.
				states[i] = allTaskStates[rng.IntN(len(allTaskStates))]
				count.Add(states[i], 1)
			}
			for step := range 200 {
				i := rng.IntN(len(states))
				from, to := states[i], allTaskStates[rng.IntN(len(allTaskStates))]
				if lifecycle.TaskEdge(from, to) != nil {
					continue
				}
				states[i] = to
				count.Move(from, to)
				if want := scanTasks(states); count != want {
					t.Fatalf("step %d, %s → %s: counted %+v, the tasks say %+v", step, from, to, count, want)
				}
				waiting := 0
				for _, st := range states {
					if st == lifecycle.TaskQueued || st == lifecycle.TaskPreempted {
						waiting++
					}
				}
				if count.Queued() != waiting {
					t.Fatalf("step %d, %s → %s: Queued = %d, the tasks say %d wait", step, from, to, count.Queued(), waiting)
				}
			}
		})
	}
}

// TestJobRecordLive: a job stays among its driver's live ones until it
// ends, and after that while a task of it holds slots.
func TestJobRecordLive(t *testing.T) {
	for _, c := range []struct {
		name   string
		state  lifecycle.JobState
		active int
		live   bool
	}{
		{"queued", lifecycle.JobQueued, 0, true},
		{"running", lifecycle.JobRunning, 2, true},
		{"completed", lifecycle.JobCompleted, 0, false},
		{"killed, its tasks being killed", lifecycle.JobKilled, 1, true},
		{"killed, its kills ended", lifecycle.JobKilled, 0, false},
		{"failed", lifecycle.JobFailed, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := lifecycle.JobRecord{State: c.state}
			if got := r.Live(lifecycle.JobTasks{Tasks: 2, Active: c.active}); got != c.live {
				t.Errorf("Live = %t, want %t", got, c.live)
			}
		})
	}
}

// checkCounts checks that every job of c counts its tasks (JobTasks) as
// their states say, as w heard each task's last record change: a task
// not launched yet (numbered from the job's NextTask on) is queued, and
// a killed job's waiting tasks (queued or preempted), which the
// Cluster keeps no records of, ended killed (KillTo), as the master's
// queued ones do: no job ends killed by its tasks with one waiting.
func checkCounts(c *lifecycle.Cluster, w *graphWatch) error {
	var states []lifecycle.TaskState
	for ji := range c.Jobs {
		j := &c.Jobs[ji]
		states = states[:0]
		for id := range int32(j.Tasks) {
			st := lifecycle.TaskQueued
			if id < j.NextTask {
				st = w.states[[2]int32{int32(ji), id}]
			}
			if to, _ := lifecycle.KillTo(st); j.State == lifecycle.JobKilled && to == lifecycle.TaskKilled {
				st = to
			}
			states = append(states, st)
		}
		if want := scanTasks(states); j.JobTasks != want {
			return fmt.Errorf("j%d (%s) counts %+v, its tasks say %+v", ji, j.State, j.JobTasks, want)
		}
	}
	return nil
}
