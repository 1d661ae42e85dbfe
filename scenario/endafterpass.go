package scenario

import "github.com/allot-sched/allot/yamlfield"

// EndAfterPass scripts an end the live master heard of after a pass of
// its second had decided something: attempt Attempt (numbered as in
// StartFail) of task Task ends, in the second its scripts end it in
// (its work done, its failure, stop, checkpoint's landing or kill's
// end), only once that instant is settled, and the instant is settled
// again after it; without it, a second's ends come before its
// submissions and passes. A live master runs a pass after each event:
// a job submitted at 34.166 and started at 34.167 on another node
// because the task of another job still held the one it would take
// (its exit at 34.856, in the same second) lands elsewhere in a replay
// that frees those slots first (trial 2026-11-29j J1). The what-if
// export writes them for the attempts that ended after a decision of
// their second (master/whatif_endafterpass.go).
type EndAfterPass struct {
	Task    int
	Attempt int
	Line    int
}

// endsAfterPass reads a job's ends_after_pass: a list of {task,
// attempt}, the attempt 1 when left out, an attempt once; one that never
// ran (start_lost, or its task's failed start in start_fails) has no end
// to order.
func (p scriptParser) endsAfterPass(f *yamlfield.Fields, j *Job) {
	never := neverRan(j)
	seen := map[[2]int]int{}
	p.eachItem(f, "ends_after_pass", "ends after a pass", func(g *yamlfield.Fields, line int) {
		e := EndAfterPass{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &e.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &e.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		g.Done()
		if !taskOK || !attemptOK || !j.names(g, e.Task) {
			return
		}
		k := [2]int{e.Task, e.Attempt}
		if where, ok := never[k]; ok {
			g.Errorf("attempt", "attempt %d of task %d never ran (%s), so it has no end to order", e.Attempt, e.Task, where)
			return
		}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d ends after a pass already (line %d); an attempt ends once", e.Attempt, e.Task, first)
			return
		}
		seen[k] = line
		j.EndsAfterPass = append(j.EndsAfterPass, e)
	})
}

// endAfterPassItem encodes an item of ends_after_pass, an attempt 1 left
// out.
func endAfterPassItem(e EndAfterPass) map[string]any {
	m := map[string]any{"task": e.Task}
	if e.Attempt > 1 {
		m["attempt"] = e.Attempt
	}
	return m
}

// String names the item as its errors do.
