package master

import (
	"fmt"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// Trials an adaptive searcher stopped early (experiments.go) end live
// as their attempt is killed, the task completed: they did less work
// than the trials that trained to max_length, and the export's one run
// time per job (the mean of the completed tasks) would run each of them
// to it. Nor can the scenario's own searcher stand in for the live one:
// it times every trial's reports by one step_time in whole seconds,
// where live trials report at their own pace, often several steps a
// second, so its stops would come at other times, if at the same steps.
// So the export ends each stopped trial as the live one ended, after the
// same work, by the one per-task end a scenario has: a scripted failure
// (fails, whatif_work.go). The replay's trials then end and free their
// slots when they did live, but count as failed, and so does their job;
// a note says so. A trial stopped while it waited (after a preemption)
// cannot be ended so: it restarts in the replay and runs on.

// stoppedNote is the note on job j's trials that its searcher stopped:
// stopped ran (ended as failures in the replay), waiting waited; "" for
// none.
func stoppedNote(j store.Job, name string, stopped, waiting int) string {
	if stopped == 0 && waiting == 0 {
		return ""
	}
	head := fmt.Sprintf("job %d (%s): its searcher stopped", j.ID, name)
	var out string
	if stopped > 0 {
		out = fmt.Sprintf("%s %s early as they ran; a scenario has one run time for a job's tasks, and its searcher "+
			"would time the trials' reports by one step time, so each ends in the replay as a failure (fails) after "+
			"the work it did live, when it ended live, and the replay counts the job failed (live: %s)",
			head, plural.Count(stopped, "trial"), j.State)
	}
	if waiting > 0 {
		if out != "" {
			out += "; it also stopped"
		} else {
			out = head
		}
		out += fmt.Sprintf(" %s as they waited, which restart in the replay and run for the job's run time", plural.Count(waiting, "trial"))
	}
	return out
}
