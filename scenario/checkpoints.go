package scenario

import (
	"github.com/allot-sched/allot/yamlfield"
)

// Checkpoint is an item of a job's checkpoints: how long (After) task
// Task's attempt Attempt takes to land its checkpoint once a pass asks
// for it. Nth, when positive, names which of the attempt's checkpoints
// (from 1, in the order the passes asked for them) the time is for: a
// move or resize continues its attempt, so an attempt may checkpoint
// more than once, and live each took its own time. Nth 0 gives the time
// of each of the attempt's checkpoints that no item names by its nth.
type Checkpoint struct {
	StartLost
	Nth int
}

// checkpoints reads a job's checkpoints: a list of {task, attempt, nth,
// after}, as lost's, the attempt 1 when left out, nth (>= 1) left out
// for every checkpoint of the attempt, after >= 0: how long that
// attempt's checkpoint takes to land once a pass asks for it. An
// attempt is listed once, or once for each nth.
func (p scriptParser) checkpoints(f *yamlfield.Fields, j *Job) {
	seen := map[[3]int]int{}
	p.eachItem(f, "checkpoints", "checkpoint times", func(g *yamlfield.Fields, line int) {
		var c Checkpoint
		nthOK := yamlfield.Field(g, "nth", &c.Nth, yamlfield.IntAtLeast(1)) || g.Node("nth") == nil
		sl, ok := j.attemptAfter(g, line, yamlfield.Duration)
		if !ok || !nthOK {
			return
		}
		c.StartLost = sl
		k := [3]int{c.Task, c.Attempt, c.Nth}
		if first, dup := seen[k]; dup {
			if c.Nth > 0 {
				g.Errorf("nth", "checkpoint %d of attempt %d of task %d has its time already (line %d)", c.Nth, c.Attempt, c.Task, first)
			} else {
				g.Errorf("attempt", "attempt %d of task %d has its checkpoint time already (line %d); give each of its checkpoints its own with nth", c.Attempt, c.Task, first)
			}
			return
		}
		seen[k] = line
		j.Checkpoints = append(j.Checkpoints, c)
	})
}

// checkpointItem encodes an item of checkpoints: an attempt's item
// (attemptItem), with its nth when it has one.
func checkpointItem(c Checkpoint) map[string]any {
	m := attemptItem(c.StartLost)
	if c.Nth > 0 {
		m["nth"] = c.Nth
	}
	return m
}
