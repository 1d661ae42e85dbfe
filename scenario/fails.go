package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// TaskFail scripts a task's failure: task Task of the job (its number
// from 0, in the order the job's tasks first start) exits with an error
// once it has done After seconds of its work (counted as Duration is:
// preemptions keep the progress made; at full size for an elastic job).
// A failed task is done and never retried, and its job ends failed once
// every task has ended, as on a live cluster, where a task fails by its
// own exit code. After 0 fails it as its work begins, at the instant its
// first attempt starts: the what-if export writes them for the tasks that
// failed live, and one that failed within its first second did no whole
// second of work.
type TaskFail struct {
	Task  int
	After int64
	Line  int
}

// scriptParser reads a job's scripted failures, losses, run times and
// stops (fails, start_fails, start_lost, lost, runs, stops), lists of
// mappings that name its tasks.
type scriptParser struct{ *spec.Parser }

// all reads the job's scripted outcomes: runs first, since a failure or
// a stop comes within its task's run time.
func (p scriptParser) all(f *yamlfield.Fields, j *Job) {
	p.runs(f, j)
	p.fails(f, j)
	p.startFails(f, j)
	p.startLost(f, j)
	p.lost(f, j)
	p.stops(f, j)
	p.agentPreempted(f, j)
	p.checkpoints(f, j)
	p.lateExits(f, j)
	p.slowKills(f, j)
	p.endsAfterPass(f, j)
}

// fails reads a job's fails: a list of {task, after}.
func (p scriptParser) fails(f *yamlfield.Fields, j *Job) {
	if f.Lookup("fails") != nil && j.Duration < 0 && j.Searcher == nil {
		f.Errorf("fails", "a job without a duration runs until it is killed and counts no progress, so its tasks cannot fail after some of their work; give duration")
		return
	}
	seen := map[int]int{}
	p.eachItem(f, "fails", "task failures", func(g *yamlfield.Fields, line int) {
		tf := TaskFail{Line: line}
		// A failure after the task's work would never happen: a file that
		// scripts one means something else. At the run time itself it
		// fails, as its work ends.
		if !j.taskAfter(g, &tf.Task, &tf.After) {
			return
		}
		if first, dup := seen[tf.Task]; dup {
			g.Errorf("task", "task %d fails already (line %d); a task fails once", tf.Task, first)
			return
		}
		seen[tf.Task] = line
		j.Fails = append(j.Fails, tf)
	})
}

// eachItem calls each with the fields and line of every item of job
// list key, a list of mappings (of what, for messages): the lists of
// scripted failures and losses read their items so.
func (p scriptParser) eachItem(f *yamlfield.Fields, key, what string, each func(g *yamlfield.Fields, line int)) {
	raw := f.Lookup(key)
	if raw == nil {
		return
	}
	path := p.Join(f.Path, key)
	items, ok := p.List(raw, path, what)
	if !ok {
		return
	}
	for i, item := range items {
		if g, ok := p.Fields(item, fmt.Sprintf("%s[%d]", path, i)); ok {
			each(g, item.Line)
		}
	}
}

// names reports whether the job has task task, and says on g's task
// field where it has not.
func (j *Job) names(g *yamlfield.Fields, task int) bool {
	if task < j.Tasks {
		return true
	}
	g.Errorf("task", "task %d does not exist: the job has %d task(s), numbered from 0", task, j.Tasks)
	return false
}

// StartFail scripts a start that fails: the agent cannot run task Task's
// attempt Attempt (its number from 1, as the decision log counts them: a
// resume after a preemption or a lost node is a new attempt, a move or
// resize is not), for a cause of the task's own (a command or working
// directory that does not exist). The task is done and failed at the
// instant of that start, never retried, and its job ends failed once
// every task has ended, as on a live cluster (lifecycle.StartFailed). The
// what-if export writes them for the tasks whose start failed live.
type StartFail struct {
	Task    int
	Attempt int
	Line    int
}

// startFails reads a job's start_fails: a list of {task, attempt}, the
// attempt 1 when left out. A task fails once: it may not fail in fails
// too, nor twice here.
func (p scriptParser) startFails(f *yamlfield.Fields, j *Job) {
	seen := map[int]string{}
	for _, tf := range j.Fails {
		seen[tf.Task] = fmt.Sprintf("in fails, line %d", tf.Line)
	}
	ran := map[int]int{}
	for _, r := range j.Runs {
		ran[r.Task] = r.Line
	}
	p.eachItem(f, "start_fails", "failed starts", func(g *yamlfield.Fields, line int) {
		sf := StartFail{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &sf.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &sf.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		g.Done()
		if !taskOK || !attemptOK || !j.names(g, sf.Task) {
			return
		}
		if where, dup := seen[sf.Task]; dup {
			g.Errorf("task", "task %d fails already (%s); a task fails once", sf.Task, where)
			return
		}
		if first, dup := ran[sf.Task]; dup {
			g.Errorf("task", "task %d ends already (in runs, line %d); a task ends once", sf.Task, first)
			return
		}
		seen[sf.Task] = fmt.Sprintf("line %d", line)
		j.StartFails = append(j.StartFails, sf)
	})
}

// StartLost scripts a start that no agent answers: task Task's attempt
// Attempt (numbered as in StartFail) is never reported running, and the
// master gives it up After seconds after the start (its agent synced
// twice and its start grace passed without a word): the task lets go of
// its slots and waits again, whatever its preemptibility, since it never
// ran, by its exit actions as after a preemption
// (lifecycle.EventStartLost). The what-if export writes them for the
// attempts the master gave up so. Job.Lost scripts, in the same form,
// attempts that ran and were lost (see there).
type StartLost struct {
	Task    int
	Attempt int
	After   int64
	Line    int
}

// startLost reads a job's start_lost: a list of {task, attempt, after},
// the attempt 1 when left out; a task's attempt is lost once.
func (p scriptParser) startLost(f *yamlfield.Fields, j *Job) {
	j.StartLost = p.lostAttempts(f, j, "start_lost", "lost starts", nil, yamlfield.PositiveDuration)
}

// lost reads a job's lost, as start_lost; an attempt is lost once, in
// either list. Its after may be 0: an agent that registers again without
// an attempt in the second the attempt started (the loss comes once the
// instant's passes have settled, as the master hears of it after the
// pass that started it).
func (p scriptParser) lost(f *yamlfield.Fields, j *Job) {
	seen := map[[2]int]int{}
	for _, l := range j.StartLost {
		seen[[2]int{l.Task, l.Attempt}] = l.Line
	}
	j.Lost = p.lostAttempts(f, j, "lost", "lost attempts", seen, yamlfield.Duration)
}

// attemptAfter reads an item {task, attempt, after} at line of a
// script of attempts (start_lost, lost, agent_preempted, checkpoints),
// the attempt 1 when left out, after read by dur, and says whether it is
// whole and names a task of the job; it says on g what is wrong.
func (j *Job) attemptAfter(g *yamlfield.Fields, line int, dur yamlfield.ValueParser[int64]) (StartLost, bool) {
	sl := StartLost{Attempt: 1, Line: line}
	taskOK := g.Required("task") && yamlfield.Field(g, "task", &sl.Task, yamlfield.IntAtLeast(0))
	attemptOK := yamlfield.Field(g, "attempt", &sl.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
	afterOK := g.Required("after") && yamlfield.Field(g, "after", &sl.After, dur)
	g.Done()
	return sl, taskOK && attemptOK && afterOK && j.names(g, sl.Task)
}

// lostAttempts reads list key of {task, attempt, after} of job j, the
// attempt 1 when left out, after read by dur, refusing an attempt in
// seen (task and attempt to its line) or twice in the list.
func (p scriptParser) lostAttempts(f *yamlfield.Fields, j *Job, key, what string, seen map[[2]int]int,
	dur yamlfield.ValueParser[int64]) []StartLost {
	if seen == nil {
		seen = map[[2]int]int{}
	}
	var out []StartLost
	p.eachItem(f, key, what, func(g *yamlfield.Fields, line int) {
		sl, ok := j.attemptAfter(g, line, dur)
		if !ok {
			return
		}
		k := [2]int{sl.Task, sl.Attempt}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d is lost already (line %d)", sl.Attempt, sl.Task, first)
			return
		}
		seen[k] = line
		out = append(out, sl)
	})
	return out
}
