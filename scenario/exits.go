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
	never := neverRan(j)
	seen := map[[2]int]int{}
	p.eachItem(f, "late_exits", "late exits", func(g *yamlfield.Fields, line int) {
		le := LateExit{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &le.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &le.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		beforeOK := g.Required("before") && yamlfield.Field(g, "before", &le.Before, yamlfield.PositiveDuration)
		g.Done()
		if !taskOK || !attemptOK || !beforeOK || !j.names(g, le.Task) {
			return
		}
		k := [2]int{le.Task, le.Attempt}
		if where, ok := never[k]; ok {
			g.Errorf("attempt", "attempt %d of task %d never ran (%s), so it has no exit to report late", le.Attempt, le.Task, where)
			return
		}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d exits late already (line %d); an attempt exits once", le.Attempt, le.Task, first)
			return
		}
		seen[k] = line
		j.LateExits = append(j.LateExits, le)
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
	never := neverRan(j)
	seen := map[[2]int]int{}
	p.eachItem(f, "slow_kills", "slow kills", func(g *yamlfield.Fields, line int) {
		sk := SlowKill{Attempt: 1, Line: line}
		taskOK := g.Required("task") && yamlfield.Field(g, "task", &sk.Task, yamlfield.IntAtLeast(0))
		attemptOK := yamlfield.Field(g, "attempt", &sk.Attempt, yamlfield.IntAtLeast(1)) || g.Node("attempt") == nil
		afterOK := g.Required("after") && yamlfield.Field(g, "after", &sk.After, yamlfield.PositiveDuration)
		g.Done()
		if !taskOK || !attemptOK || !afterOK || !j.names(g, sk.Task) {
			return
		}
		k := [2]int{sk.Task, sk.Attempt}
		if where, ok := never[k]; ok {
			g.Errorf("attempt", "attempt %d of task %d never ran (%s), so no kill waits for it", sk.Attempt, sk.Task, where)
			return
		}
		if first, dup := seen[k]; dup {
			g.Errorf("attempt", "attempt %d of task %d is slow to kill already (line %d); an attempt is killed once", sk.Attempt, sk.Task, first)
			return
		}
		seen[k] = line
		j.SlowKills = append(j.SlowKills, sk)
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
