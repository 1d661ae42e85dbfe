package scenario

import (
	"fmt"

	"github.com/allot-sched/allot/yamlfield"
)

// LateExit scripts an exit the live master heard of late: the processes
// of task Task's attempt Attempt (numbered as in StartFail) exited Before
// seconds before the attempt ended, its agent having been unable to
// report it until then. The attempt still ends, and its slots come free,
// when it ends in the replay (its work done, its checkpoint landed, its
// failure or stop: what the end is, the job's other scripts say); only
// its account stops being charged for them Before seconds earlier, as
// the live master charges usage until the exit the agent reported
// (store.Attempt.ExitedAt) and frees the GPUs when it heard of it
// (lifecycle.Task.ExitBefore). The what-if export writes them for the
// attempts whose exit it heard a whole second or more after the exit.
type LateExit struct {
	Task    int
	Attempt int
	Before  int64
	Line    int
}

// lateExits reads a job's late_exits: a list of {task, attempt, before},
// the attempt 1 when left out, before a positive duration. An attempt
// exits once; one that never ran (start_lost, or its task's failed
// start in start_fails) has no exit to hear of late.
func (p scriptParser) lateExits(f *yamlfield.Fields, j *Job) {
	p.attemptItems(f, j, attemptList{list: "late_exits", what: "late exits", key: "before",
		never: "so it has no exit to report late", dup: "exits late already (line %d); an attempt exits once"},
		func(it timedAttempt) {
			j.LateExits = append(j.LateExits, LateExit{Task: it.task, Attempt: it.attempt, Before: it.secs, Line: it.line})
		})
}

// attemptList names a job's list of per-attempt script items (late_exits,
// slow_kills) in a scenario and its errors: the list's key, what it holds
// in words, the key of each item's duration, and the ends of the messages
// refusing an attempt that never ran (never) and one listed twice (dup,
// with the first's line as %d).
type attemptList struct{ list, what, key, never, dup string }

// timedAttempt is one item of such a list: the task, the attempt (1 when
// left out), the duration in seconds and the item's line.
type timedAttempt struct {
	task, attempt int
	secs          int64
	line          int
}

// attemptItems reads job j's list l as {task, attempt, l.key}, the key a
// positive duration, and gives add each item that names a task of the
// job and an attempt that ran (not in start_lost, nor its task's failed
// start in start_fails) and that no earlier item named.
func (p scriptParser) attemptItems(f *yamlfield.Fields, j *Job, l attemptList, add func(timedAttempt)) {
	never := neverRan(j)
	seen := map[[2]int]int{}
	p.eachItem(f, l.list, l.what, func(g *yamlfield.Fields, line int) {
		it := timedAttempt{attempt: 1, line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &it.task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &it.attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		secsOK := g.Required(l.key) && yamlfield.Field(g, l.key, &it.secs, yamlfield.PositiveDuration)
		g.Done()
		if !taskOK || !attemptOK || !secsOK || !j.names(g, it.task) {
			return
		}
		k := [2]int{it.task, it.attempt}
		if where, ok := never[k]; ok {
			g.Errorf("attempt", "attempt %d of task %d never ran (%s), %s", it.attempt, it.task, where, l.never)
			return
		}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d "+l.dup, it.attempt, it.task, first)
			return
		}
		seen[k] = line
		add(it)
	})
}

// lateExitItem encodes an item of late_exits, an attempt 1 left out.
func lateExitItem(le LateExit) map[string]any {
	m := map[string]any{"task": le.Task, "before": le.Before}
	if le.Attempt > 1 {
		m["attempt"] = le.Attempt
	}
	return m
}

// SlowKill scripts a kill the live master waited for: attempt Attempt
// (numbered as in StartFail) of task Task, once a kill stops it (its
// job's kill event, or its time limit), ends After seconds after the
// kill, holding its slots until then, as the live master holds the GPUs
// of a task being killed until its agent reports the end, which a silent
// node delays (lifecycle.Task.KillAfter). The what-if export writes them
// for the attempts a kill ended a whole second or more after it.
type SlowKill struct {
	Task    int
	Attempt int
	After   int64
	Line    int
}

// slowKills reads a job's slow_kills: a list of {task, attempt, after},
// the attempt 1 when left out, after a positive duration. An attempt is
// killed once; one that never ran (start_lost, or its task's failed
// start in start_fails) has no kill to wait for.
func (p scriptParser) slowKills(f *yamlfield.Fields, j *Job) {
	p.attemptItems(f, j, attemptList{list: "slow_kills", what: "slow kills", key: "after",
		never: "so no kill waits for it", dup: "is slow to kill already (line %d); an attempt is killed once"},
		func(it timedAttempt) {
			j.SlowKills = append(j.SlowKills, SlowKill{Task: it.task, Attempt: it.attempt, After: it.secs, Line: it.line})
		})
}

// neverRan maps the attempts of job j that never ran (in start_lost, or
// its task's failed start in start_fails) to where the file says so.
func neverRan(j *Job) map[[2]int]string {
	never := map[[2]int]string{}
	for _, l := range j.StartLost {
		never[[2]int{l.Task, l.Attempt}] = fmt.Sprintf("in start_lost, line %d", l.Line)
	}
	for _, sf := range j.StartFails {
		never[[2]int{sf.Task, sf.Attempt}] = fmt.Sprintf("in start_fails, line %d", sf.Line)
	}
	return never
}

// slowKillItem encodes an item of slow_kills, an attempt 1 left out.
func slowKillItem(sk SlowKill) map[string]any {
	m := map[string]any{"task": sk.Task, "after": sk.After}
	if sk.Attempt > 1 {
		m["attempt"] = sk.Attempt
	}
	return m
}
