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
		c := StartLost{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &c.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &c.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		afterOK := g.Required("after") && yamlfield.Field(g, "after", &c.After, yamlfield.Duration)
		g.Done()
		if !taskOK || !attemptOK || !afterOK || !j.names(g, c.Task) {
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
