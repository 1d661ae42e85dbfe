package scenario

import (
	"github.com/allot-sched/allot/yamlfield"
)

// checkpoints reads a job's checkpoints: a list of {task, attempt,
// after}, as lost's, the attempt 1 when left out, after >= 0: how long
// that attempt's checkpoint takes to land once a pass asks for it. An
// attempt is listed once.
func (p scriptParser) checkpoints(f *yamlfield.Fields, j *Job) {
	seen := map[[2]int]int{}
	p.eachItem(f, "checkpoints", "checkpoint times", func(g *yamlfield.Fields, line int) {
		c, ok := j.attemptAfter(g, line, yamlfield.Duration)
		if !ok {
			return
		}
		k := [2]int{c.Task, c.Attempt}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d has its checkpoint time already (line %d); an attempt's checkpoints take one time", c.Attempt, c.Task, first)
			return
		}
		seen[k] = line
		j.Checkpoints = append(j.Checkpoints, c)
	})
}
