package sim

import (
	"math"

	"github.com/allot-sched/allot/lifecycle"
)

// Elastic jobs (JobSpec.MinSlots > 0). The core starts a task at a
// halved size when its full size does not fit (the Start's nodes say how
// many slots it got) and doubles running tasks when slots are spare
// (sched.Plan.Resizes, replayed by resize in move.go).
//
// The simulator's model of how an elastic task progresses, which the seed
// leaves open: its work is Duration × Slots slot-seconds (Duration is its
// run time at full size), and it does one slot-second of work per second
// on each slot it holds. A task on half its slots takes twice as long; a
// task that grows mid-run finishes its remaining work at the new rate.
// A resize is a checkpoint: the task keeps its progress (or, with
// CheckpointEvery, the progress up to its last periodic checkpoint).
// Non-elastic tasks count work in seconds, which is the same model with
// a rate of one.

// freshWork is the work of a task that never ran: seconds, or for an
// elastic job slot-seconds; Unbounded stays Unbounded.
func freshWork(spec *JobSpec) int64 {
	return lifecycle.FreshWork(spec.Duration, spec.Slots, spec.MinSlots > 0)
}

// taskWorks are the fresh works of the tasks with runs of their own
// (JobSpec.Runs), as freshWork counts them; nil for none.
func taskWorks(spec *JobSpec) map[int32]int64 {
	if len(spec.Runs) == 0 {
		return nil
	}
	out := make(map[int32]int64, len(spec.Runs))
	for task, w := range spec.Runs {
		out[int32(task)] = lifecycle.FreshWork(w, spec.Slots, spec.MinSlots > 0)
	}
	return out
}

// tooElastic says whether a run of an elastic job's task is too much
// work to count in slot-seconds.
func tooElastic(spec *JobSpec) bool {
	for _, w := range spec.Runs {
		if w > math.MaxInt64/int64(spec.Slots) {
			return true
		}
	}
	return false
}

// shapeOf is what of a job decides how its tasks' work progresses: the
// model above, checkpoints and the time limit.
func shapeOf(spec *JobSpec) lifecycle.Shape {
	return lifecycle.Shape{Elastic: spec.MinSlots > 0, Every: spec.CheckpointEvery, Limit: spec.TimeLimit}
}

// rate is how much work task t does per second: the slots it holds for
// an elastic job, else 1.
func (s *world) rate(t *lifecycle.Task) int64 {
	return t.Rate(s.c.Jobs[t.Job].Shape)
}
