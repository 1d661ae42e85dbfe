package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/yamlfield"
)

// agentPreempted reads a job's agent_preempted: a list of {task, attempt,
// after} as lost's, the attempt 1 when left out, after >= 0. An attempt
// ends once: it may not be in start_lost or lost too, nor twice here.
func (p scriptParser) agentPreempted(f *yamlfield.Fields, j *Job) {
	seen := map[[2]int]string{}
	for _, l := range j.StartLost {
		seen[[2]int{l.Task, l.Attempt}] = fmt.Sprintf("in start_lost, line %d", l.Line)
	}
	for _, l := range j.Lost {
		seen[[2]int{l.Task, l.Attempt}] = fmt.Sprintf("in lost, line %d", l.Line)
	}
	p.eachItem(f, "agent_preempted", "attempts their agent preempted", func(g *yamlfield.Fields, line int) {
		sl := StartLost{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &sl.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &sl.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		afterOK := g.Required("after") && yamlfield.Field(g, "after", &sl.After, yamlfield.Duration)
		g.Done()
		if !taskOK || !attemptOK || !afterOK || !j.names(g, sl.Task) {
			return
		}
		k := [2]int{sl.Task, sl.Attempt}
		if where, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d ends already (%s); an attempt ends once", sl.Attempt, sl.Task, where)
			return
		}
		seen[k] = fmt.Sprintf("line %d", line)
		j.AgentPreempted = append(j.AgentPreempted, sl)
	})
}
