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
		sl, ok := j.attemptAfter(g, line, yamlfield.Duration)
		if !ok {
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
