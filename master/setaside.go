package master

import (
	"errors"
	"strconv"

	"github.com/allot-sched/allot/sched"
)

// Jobs the core refuses. The core refuses a whole snapshot for one job
// whose fields it cannot take (an account or project index out of range,
// a weight that is not positive: sched.JobError), and a refused snapshot
// plans nothing in any pool. So one such job, whatever made it (a bug, a
// configuration the master did not foresee), stopped the whole cluster
// until a restart. Such a job is set aside instead: it leaves the
// snapshot with the core's error as its reason, code "refused" (a
// running one keeps its GPUs, outside.go), and the pass runs again
// without it; the scheduling passes' health (passhealth.go) only fails
// for an error that is not one job's, or for more jobs at once than
// maxSetAside. A set-aside job is tried again once the configuration
// changes (a reload, or a change of users or projects that remakes the
// entries) or the master restarts.

// maxSetAside bounds the jobs one scheduling sets aside before it gives
// up and fails: more than a few refused at once is no single bad job.
const maxSetAside = 8

// setAside leaves the job of m that err, a refused pass's, names out of
// the snapshot roster r makes; it reports false where err names none it
// can set aside. Callers hold mu (a refused pass returns holding it).
func setAside(m *Master, r *jobRoster, err error) bool {
	var je *sched.JobError
	if !errors.As(err, &je) {
		return false
	}
	id, perr := strconv.ParseInt(je.Job, 10, 64)
	if perr != nil {
		return false
	}
	j := m.jobs[id]
	if j == nil || j.refused != "" {
		return false
	}
	j.refused, j.refusedGen = je.Error(), m.cfgGen
	j.entryGen = 0 // the next build makes its entry again, and leaves it out
	r.touched = append(r.touched, j)
	m.log.Error("the scheduler refused a job; it is set aside until the configuration changes", "job", id, "err", je.Err)
	return true
}

// stillRefused reports whether job j stays set aside at configuration
// generation gen, giving it its reason; a change of the configuration
// since it was refused clears it.
func stillRefused(j *mjob, gen int) bool {
	if j.refused == "" {
		return false
	}
	if j.refusedGen != gen {
		j.refused = ""
		return false
	}
	j.pending = &pendingInfo{code: "refused", msg: "the scheduler refused the job (" + j.refused +
		"); it is set aside until the configuration changes (allot config reload) or the master restarts"}
	return true
}
