package master

import (
	"fmt"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Jobs still live when exported. A job that had not ended when the
// export ran (running, or waiting to start or to resume) has not said
// how long its tasks run: the time they have run so far is only how much
// of the window was left. Taken as their run time, the replay would end
// the job at the window's end, completed, where it was still running
// live. So the export assumes a run time that cannot end it earlier than
// it could have ended live, and says what it assumed in a note naming
// the job:
//
//   - some tasks completed: the mean of theirs, as for an ended job, or,
//     where a task still running had already worked longer, that work
//     and a second more;
//   - a task ran into the time limit: the replay's limit ends the tasks,
//     as it does an ended job's;
//   - a time limit: the limit (an attempt runs at most that long), or
//     more where a task's work over several attempts already exceeds it;
//   - no time limit: no run time, so the tasks run until the replay ends
//     and the job ends it unfinished, holding its slots, as it held them
//     past the window live; a job with a failed task needs a run time
//     (the failure comes after some of it), and runs for the most work a
//     task did and a second more, a guess the note calls one;
//   - no time limit and it never ran: the same, its tasks run until the
//     replay ends if they start. Nothing says how long they would run,
//     but a job waiting still counts in what the passes decide: a
//     higher-priority one preempts for its slots (live, the victims may
//     still be checkpointing when exported), and its place in the queue
//     holds back others. Left out, as an ended job that never ran is, the
//     replay made none of that, and allot history check differed from
//     the live log by the preemptions it caused. What the replay decides
//     after the export (the start of such a job, once the checkpoints it
//     waits for land: whatif_checkpoints.go has an open one take longer
//     than until the export) is its guess, which the check does not
//     compare: it compares the decisions made before the live log was
//     read.

// liveRunTime sets the Duration of sj, a job still live when exported,
// and returns the note that says what it assumed.
func liveRunTime(j store.Job, w jobWork, sj *scenario.Job) string {
	state := "waiting"
	if j.State == store.JobRunning {
		state = "running (" + runningOf(w.open, sj.Tasks) + ")"
	}
	head := fmt.Sprintf("job %d (%s) was still %s when exported", j.ID, sj.Name, state)
	switch {
	case w.n > 0 && w.open > 0 && w.openMost >= w.mean:
		sj.Duration = w.openMost + 1
		return fmt.Sprintf("%s: its tasks run for %d s, a second more than a task still running had done (its %s mean %d s)",
			head, sj.Duration, plural.Count(w.n, "completed task"), w.mean)
	case w.n > 0:
		sj.Duration = w.mean
		return fmt.Sprintf("%s: its tasks run for the mean of its %s, %d s", head, plural.Count(w.n, "completed task"), sj.Duration)
	case w.limited && len(w.failed) == 0:
		return head + ": a task ran into its time limit, and the replay's time limit ends its tasks too"
	case sj.TimeLimit > 0:
		sj.Duration = max(sj.TimeLimit, w.most+1)
		what := "its time limit, the most an attempt may run"
		if sj.Duration > sj.TimeLimit {
			what = "a second more than a task had done over its attempts, past its time limit"
		}
		return fmt.Sprintf("%s: its run time is unknown, and its tasks run for %d s, %s", head, sj.Duration, what)
	case len(w.failed) > 0:
		sj.Duration = w.most + 1
		return fmt.Sprintf("%s, with no time limit: its tasks run for %d s, a second more than a task had done, a guess (a failed task needs a run time); the replay may end them before they ended live", head, sj.Duration)
	}
	sj.Duration = -1
	return head + ", with no time limit: its tasks run until the replay ends, unfinished, as its run time is unknown"
}

// runningOf says how many of a job's tasks run: "4 of its 6 tasks", "all
// 6 of its tasks", "its only task".
func runningOf(open, tasks int) string {
	switch {
	case open == tasks && tasks == 1:
		return "its only task"
	case open == tasks:
		return fmt.Sprintf("all %d of its tasks", tasks)
	}
	return fmt.Sprintf("%d of its %s", open, plural.Count(tasks, "task"))
}
