package master

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
)

// The order of a second's events. A scenario's events count whole
// seconds, and the simulator takes the scripted events of an instant in
// the file's order (each settling first where it says after_pass), so
// the export writes the events of one second in the order the live
// master took them: a user's kill 60 ms after an admin's resume whose
// pass started the job comes after the resume, and the replay starts the
// job and kills it, as the master did, rather than killing it waiting.
// The export gathers them by kind (each job's changes and kill, then the
// nodes' losses, returns, drains and resumes, then their reshapes), each
// with the live time it stands for; events at one live time keep that
// order (a node's return before its reshape, the state at the window's
// start first).

// liveOrder sorts evs by their seconds and, within one, by their live
// times (times[i] is evs[i]'s), stably. Not one time for each event is
// the export's bug, an error.
func liveOrder(evs []scenario.Event, times []time.Time) ([]scenario.Event, error) {
	if len(times) != len(evs) {
		return nil, fmt.Errorf("order the export's events: %d events, %d live times", len(evs), len(times))
	}
	idx := make([]int, len(evs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(evs[a].At, evs[b].At), times[a].Compare(times[b]))
	})
	out := make([]scenario.Event, len(evs))
	for i, k := range idx {
		out[i] = evs[k]
	}
	return out, nil
}
