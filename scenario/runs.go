package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/yamlfield"
)

// TaskRun scripts a task's own run time: task Task of the job (numbered
// as in TaskFail) completes once it has done Work seconds of work (at
// full size for an elastic job) instead of the job's Duration, counted
// as Duration is. The what-if export writes them for a job whose tasks
// ran for different times live, each the work its task did.
type TaskRun struct {
	Task int
	Work int64
	Line int
}

// TaskStop scripts a task stopped from outside: task Task is stopped
// once it has done After seconds of its work (counted as Duration is),
// as a live master ends a trial its experiment's searcher stopped
// (master/experiments.go, stopTrial): the attempt is killed, the task
// completed (lifecycle.EventStopped), and the job ends as its tasks put
// it. After 0 stops it as its work begins. The what-if export writes
// them for the trials a searcher stopped as they ran.
type TaskStop struct {
	Task  int
	After int64
	Line  int
}

// endings maps each task that a failure script of job j read so far
// names (fails, start_fails) to where, for the message that refuses a
// second end.
func (j *Job) endings() map[int]string {
	seen := map[int]string{}
	for _, tf := range j.Fails {
		seen[tf.Task] = fmt.Sprintf("in fails, line %d", tf.Line)
	}
	for _, sf := range j.StartFails {
		seen[sf.Task] = fmt.Sprintf("in start_fails, line %d", sf.Line)
	}
	return seen
}

// taskAfter reads an item {task, after} of a failure or stop script
// into task and after, and says whether it names a task of the job that
// it ends within its run time (within); it says on g what is wrong.
func (j *Job) taskAfter(g *yamlfield.Fields, task *int, after *int64) bool {
	taskOK := g.Required("task") && yamlfield.Field(g, "task", task, yamlfield.IntAtLeast(0))
	afterOK := g.Required("after") && yamlfield.Field(g, "after", after, yamlfield.Duration)
	g.Done()
	return taskOK && afterOK && j.names(g, *task) && j.within(g, *task, *after)
}

// within says whether a failure or stop of task after that much of its
// work comes within the task's run time (its runs entry's work, else the
// job's Duration; at the run time itself it comes first), and says on
// g's after field where it does not: the task would complete first.
func (j *Job) within(g *yamlfield.Fields, task int, after int64) bool {
	for _, r := range j.Runs {
		if r.Task == task {
			if after > r.Work {
				g.Errorf("after", "after %d s is beyond task %d's run time %d s (runs, line %d): the task would complete first", after, task, r.Work, r.Line)
				return false
			}
			return true
		}
	}
	if j.Duration >= 0 && after > j.Duration {
		g.Errorf("after", "after %d s is beyond the job's run time %d s: the task would complete first", after, j.Duration)
		return false
	}
	return true
}

// runs reads a job's runs: a list of {task, work}, a task once. It is
// read before the other scripts: a task with its own run time may fail
// (fails) or be stopped (stops) within it, and not fail to start
// (start_fails). An experiment's trials run max_length steps of
// step_time each, which its searcher times reports by, so it takes none.
func (p scriptParser) runs(f *yamlfield.Fields, j *Job) {
	if f.Lookup("runs") != nil && j.Searcher != nil {
		f.Errorf("runs", "an experiment's trials run max_length steps of step_time each, which its searcher times the reports by; leave runs out")
		return
	}
	seen := map[int]string{}
	p.eachItem(f, "runs", "task run times", func(g *yamlfield.Fields, line int) {
		r := TaskRun{Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &r.Task, yamlfield.IntAtLeast(0))
		workOK := g.Required("work") && yamlfield.Field(g, "work", &r.Work, yamlfield.Duration)
		g.Done()
		if !taskOK || !workOK || !j.names(g, r.Task) {
			return
		}
		if where, dup := seen[r.Task]; dup {
			g.Errorf("task", "task %d ends already (%s); a task ends once", r.Task, where)
			return
		}
		seen[r.Task] = fmt.Sprintf("line %d", line)
		j.Runs = append(j.Runs, r)
	})
}

// stops reads a job's stops: a list of {task, after}, after within the
// task's run time (within; at it, the stop comes first, as a failure
// does). A task has one end: it may not be in fails or start_fails too,
// nor twice here.
func (p scriptParser) stops(f *yamlfield.Fields, j *Job) {
	if f.Lookup("stops") != nil && j.Duration < 0 && j.Searcher == nil {
		f.Errorf("stops", "a job without a duration runs until it is killed and counts no progress, so its tasks cannot be stopped after some of their work; give duration")
		return
	}
	seen := j.endings()
	p.eachItem(f, "stops", "task stops", func(g *yamlfield.Fields, line int) {
		ts := TaskStop{Line: line}
		if !j.taskAfter(g, &ts.Task, &ts.After) {
			return
		}
		if where, dup := seen[ts.Task]; dup {
			g.Errorf("task", "task %d ends already (%s); a task ends once", ts.Task, where)
			return
		}
		seen[ts.Task] = fmt.Sprintf("line %d", line)
		j.Stops = append(j.Stops, ts)
	})
}
