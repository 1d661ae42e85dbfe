package master

import (
	"maps"
	"slices"

	"github.com/allot-sched/allot/scenario"
)

// exportRuns are the run times of the tasks that completed live (done:
// their work, in the units of the job's run time) whose work was not the
// job's run time (duration), as the scenario's runs: the simulator
// completes each after its own work, as it completed live, where the
// job's one run time (the mean of its completed tasks) would end a
// longer task early and a shorter one late. None for a job without a run
// time, whose tasks all run until killed.
func exportRuns(done map[int]int64, duration int64) []scenario.TaskRun {
	if duration < 0 {
		return nil
	}
	var out []scenario.TaskRun
	for _, task := range slices.Sorted(maps.Keys(done)) {
		if w := done[task]; w != duration {
			out = append(out, scenario.TaskRun{Task: task, Work: w})
		}
	}
	return out
}
