package master

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// A job with tasks running and tasks waiting holds slots of its own pool:
// "it could start once job 12 ends", said of job 12, reads as a job
// waiting for itself, and the job ending would not start the tasks it has
// left. The counterfactual names other jobs' ends first, and says so when
// only the job's own tasks ending would make room.

// othersOnly is nodes with job ji's own allocations left out of what may
// end; their slots stay taken.
func othersOnly(s *sched.Snapshot, nodes []*nodeUse, ji int) []*nodeUse {
	out := make([]*nodeUse, len(nodes))
	for i, n := range nodes {
		c := *n
		c.allocs = slices.DeleteFunc(slices.Clone(n.allocs), func(ai int) bool { return s.Allocs[ai].Job == ji })
		out[i] = &c
	}
	return out
}

// holdsOwn says whether job ji holds slots on any of nodes.
func holdsOwn(s *sched.Snapshot, nodes []*nodeUse, ji int) bool {
	for _, n := range nodes {
		if slices.ContainsFunc(n.allocs, func(ai int) bool { return s.Allocs[ai].Job == ji }) {
			return true
		}
	}
	return false
}

// freesEnough says whether ends ending leaves need slots free on chosen.
func freesEnough(s *sched.Snapshot, chosen []*nodeUse, ends []int, need int) bool {
	free := 0
	for _, n := range chosen {
		free += n.free
		for _, ai := range ends {
			free += allocSlotsOn(&s.Allocs[ai], n, s)
		}
	}
	return free >= need
}

// withoutJob is refs less the one of job id.
func withoutJob(refs []api.JobRef, id int64) []api.JobRef {
	return slices.DeleteFunc(refs, func(r api.JobRef) bool { return r.ID == id })
}

// ownEndMessage is the counterfactual's sentence when the job's own
// running tasks must end (others, the jobs that must end with them).
func ownEndMessage(nodes []string, others []api.JobRef) string {
	where := strings.Join(nodes, ", ")
	if len(others) == 0 {
		return fmt.Sprintf("It could start on %s once some of its own running tasks end: they hold the slots it needs.", where)
	}
	return fmt.Sprintf("It could start on %s once some of its own running tasks end and %s.", where, mustEndPhrase(others))
}
