package master

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Trials an adaptive searcher stopped early (experiments.go) end live
// as their attempt is killed, the task completed: they did less work
// than the trials that trained to max_length. Nor can the scenario's own
// searcher stand in for the live one: it times every trial's reports by
// one step_time in whole seconds, where live trials report at their own
// pace, often several steps a second, so its stops would come at other
// times, if at the same steps. So the export ends each stopped trial as
// the live one ended, after the same work, by a scripted stop (stops),
// which the simulator ends as the master did (the attempt killed, the
// task completed, sim's JobSpec.Stops): the replay's trials end and free
// their slots when they did live, with the same decision-log lines, and
// their job ends as it did. A trial stopped while it waited (after a
// preemption) cannot be ended so: it restarts in the replay and runs on,
// and a note says so.

// exportStops are the stops of the trials a searcher stopped as they ran
// (stopped), each after its work up to the stop (failed, where workOf
// counts it as a failure's), by task.
func exportStops(failed map[int]int64, stopped map[int]bool) []scenario.TaskStop {
	var out []scenario.TaskStop
	for _, task := range slices.Sorted(maps.Keys(stopped)) {
		out = append(out, scenario.TaskStop{Task: task, After: failed[task]})
	}
	return out
}

// stoppedNote is the note on job j's trials that its searcher stopped:
// stopped ran (stopped in the replay too), waiting waited; "" for none.
func stoppedNote(j store.Job, name string, stopped, waiting int) string {
	if stopped == 0 && waiting == 0 {
		return ""
	}
	head := fmt.Sprintf("job %d (%s): its searcher stopped", j.ID, name)
	var out string
	if stopped > 0 {
		out = fmt.Sprintf("%s %s early as they ran; the scenario's searcher would time the trials' reports by one "+
			"step time, so each is stopped in the replay (stops) after the work it did live, when it ended live",
			head, plural.Count(stopped, "trial"))
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
