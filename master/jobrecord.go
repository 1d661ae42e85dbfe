package master

import (
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// A job's state in the mirror is its scheduling record's
// (mjob.JobRecord, lifecycle.JobRecord, which the simulator's
// lifecycle.Cluster keeps of each job too), changed by its one
// transition, Enter, here only: setJob, which records each stored row of
// the job (a settle's transition, a kill, a hold or release, a change of
// its settings, its end moved to its last task's), enters the row's
// state with it, so that the record and the row always say the same. The
// state a settle stores is the record's rule (Settles, settleJob), the
// Cluster's too. A job just submitted or read back by a restart is born
// in its row's state (newJob). A late exit amends the stored end of a
// job only once it has left the mirror (lateexit.go, endedJobAfter), so
// no record sees that change.

// setJob records job j's new stored row in the mirror, its state by its
// record's transition (lifecycle.JobRecord.Enter) and whether it is held
// (OnHold: the row's Held), and returns what Enter did.
func setJob(m *Master, j *mjob, rec store.Job) lifecycle.JobEntered {
	j.rec = rec
	e := j.Enter(rec.State)
	j.OnHold = rec.Held()
	if m.watchJob != nil {
		m.watchJob(j, e.From, rec.State)
	}
	return e
}

// newJob is the mirror of job rec, its record born in rec's state (a job
// just submitted, queued; one a restart reads back).
func newJob(rec store.Job) *mjob {
	return &mjob{rec: rec, JobRecord: lifecycle.JobRecord{State: rec.State,
		Experiment: rec.Kind == store.KindExperiment, OnHold: rec.Held()}}
}

// tasksSay is what job j's tasks say of its state (JobRecord.Settles):
// those holding attempts, those ended, and of them those failed and
// killed, as setTask counted them (mjob.count).
func (j *mjob) tasksSay() lifecycle.JobTasks { return j.count }
