package master

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// preemptedBy names, on the attempts of a job's view, the job each
// preemption or move made room for and under which rule, as the
// preempting transition's event keeps them (store.Event.ForJob and
// Cause), so that allot job show and the dashboard's job page say by
// whom an attempt was preempted, not only allot explain. It reads the
// event log only when an attempt was preempted or is being preempted;
// the redactor later hides what the caller may not read of those jobs.
func (ja *jobsAPI) preemptedBy(ctx context.Context, view *api.Job) error {
	if !slices.ContainsFunc(view.TaskList, stopped) {
		return nil
	}
	evs, err := ja.m.st.Events(ctx, store.EventFilter{JobID: view.ID, To: string(store.TaskPreempting)})
	if err != nil {
		return fmt.Errorf("read who preempted job %d: %w", view.ID, err)
	}
	by := map[attemptKey]*api.PreemptedBy{}
	for _, e := range evs {
		if e.ForJob != 0 {
			by[attemptKey{e.JobID, e.Index, e.Attempt}] = &api.PreemptedBy{Job: e.ForJob, Reason: string(e.Cause),
				Why: e.Reason}
		}
	}
	recs := map[int64]store.Job{}
	for i := range view.TaskList {
		t := &view.TaskList[i]
		for k := range t.Attempts {
			p := by[attemptKey{view.ID, t.Index, t.Attempts[k].Number}]
			if p == nil {
				continue
			}
			rec, err := ja.takerRecord(ctx, p.Job, recs)
			if err != nil {
				return err
			}
			p.Name, p.User, p.Project = rec.Name, rec.User, rec.Project
			t.Attempts[k].PreemptedBy = p
		}
	}
	return nil
}

// stopped reports whether a task has an attempt that ended preempted, or
// is being preempted.
func stopped(t api.Task) bool {
	return t.State == string(store.TaskPreempting) || slices.ContainsFunc(t.Attempts, func(a api.Attempt) bool {
		return a.EndState == string(store.AttemptPreempted)
	})
}

// takerRecord is job id's record, from the read view while it is live, else
// from the store, cached in recs; a zero record for one pruned since.
func (ja *jobsAPI) takerRecord(ctx context.Context, id int64, recs map[int64]store.Job) (store.Job, error) {
	if rec, ok := recs[id]; ok {
		return rec, nil
	}
	var rec store.Job
	if j := ja.m.pub.reads().job(id); j != nil {
		rec = j.rec
	} else {
		var err error
		rec, err = ja.m.st.Job(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			rec = store.Job{ID: id}
		} else if err != nil {
			return store.Job{}, fmt.Errorf("read job %d, which preempted job's attempt: %w", id, err)
		}
	}
	recs[id] = rec
	return rec, nil
}
