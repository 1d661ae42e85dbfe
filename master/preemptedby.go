package master

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
	by := map[attemptKey]store.Event{}
	agentStopped := map[attemptKey]bool{}
	for _, e := range evs {
		if e.ForJob != 0 {
			by[attemptKey{e.JobID, e.Index, e.Attempt}] = e
		}
		if e.Cause == store.CauseAgentStopped {
			agentStopped[attemptKey{e.JobID, e.Index, e.Attempt}] = true
		}
	}
	recs := map[int64]store.Job{}
	starts := takerStarts{}
	for i := range view.TaskList {
		t := &view.TaskList[i]
		for k := range t.Attempts {
			a := &t.Attempts[k]
			if agentStopped[attemptKey{view.ID, t.Index, a.Number}] && a.EndState == string(store.AttemptPreempted) {
				a.AgentStopped = true
			}
			e, ok := by[attemptKey{view.ID, t.Index, a.Number}]
			if !ok {
				continue
			}
			p := &api.PreemptedBy{Job: e.ForJob, Reason: string(e.Cause), Why: e.Reason}
			rec, err := takerRecord(ctx, ja.m, p.Job, recs)
			if err != nil {
				return err
			}
			p.Name, p.User, p.Project = rec.Name, rec.User, rec.Project
			ended := time.Time{}
			if a.EndedAt != nil {
				ended = *a.EndedAt
			}
			note, err := takerElsewhere(ctx, ja.m, e, apiGPUs(a.Placement), ended, starts)
			if err != nil {
				return err
			}
			if note != "" {
				p.StartedElsewhere = true
				p.Why = whyFor(p.Why, p.Job) + note
			}
			a.PreemptedBy, a.Fenced = p, false
		}
	}
	return nil
}

// A preemption is not withdrawn (trial n F19): the signal has gone to the
// attempt, as Kueue and Run:ai do not withdraw an eviction either. But
// the job it was for may never use its GPUs: other GPUs freed while the
// attempt checkpointed, and the job started there. The attempt's record
// (allot job show, the job page, allot explain) then says so, rather
// than read as if that job had taken its GPUs: "preempted for ana's job
// 18 (...), which then started on other GPUs that freed meanwhile".

// takerStarts caches the records of the jobs attempts were preempted
// for, by job.
type takerStarts map[int64]*store.JobRecords

// takerElsewhere is the note for an attempt preempted by event e (its
// transition to preempting) on GPUs gpus ("node/index"), which ended at
// ended (zero: still stopping): ", which then started on other GPUs
// that freed meanwhile" when every task of the job it was for has
// started since on none of those GPUs (no task still waits for them),
// ", which was killed before it started" when that job ended unstarted;
// "" otherwise, and for a job pruned since.
func takerElsewhere(ctx context.Context, m *Master, e store.Event, gpus map[string]bool, ended time.Time, cache takerStarts) (string, error) {
	recs, ok := cache[e.ForJob]
	if !ok {
		r, err := m.st.JobRecords(ctx, e.ForJob)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return "", fmt.Errorf("read job %d, which an attempt of job %d was preempted for: %w", e.ForJob, e.JobID, err)
		default:
			recs = &r
		}
		cache[e.ForJob] = recs
	}
	if recs == nil || len(recs.Tasks) == 0 {
		return "", nil
	}
	var last time.Time
	waiting := false
	for _, t := range recs.Tasks {
		i := slices.IndexFunc(recs.Attempts, func(a store.Attempt) bool {
			return a.Index == t.Index && !a.StartedAt.Before(e.At)
		})
		if i < 0 {
			waiting = true
			continue
		}
		a := recs.Attempts[i]
		for _, p := range a.Placement {
			for _, g := range p.GPUs {
				if gpus[gpuKey(p.Node, g.Index)] {
					return "", nil
				}
			}
		}
		if a.StartedAt.After(last) {
			last = a.StartedAt
		}
	}
	switch {
	case last.IsZero() && recs.Job.State == store.JobKilled:
		return ", which was killed before it started", nil
	case last.IsZero() || waiting && !recs.Job.State.Terminal():
		return "", nil // a task still waits, maybe for these GPUs
	case ended.IsZero() || !last.After(ended):
		return ", which then started on other GPUs that freed meanwhile", nil
	}
	return ", which then started on other GPUs", nil
}

// whyFor is a preemption's account that names job id, as the views read
// it (they take an account that does not for none).
func whyFor(why string, id int64) string {
	ref := "job " + strconv.FormatInt(id, 10)
	if !strings.Contains(why, ref) {
		return "preempted for " + ref
	}
	return why
}

func gpuKey(node string, index int) string { return node + "/" + strconv.Itoa(index) }

// apiGPUs is the set of an attempt's GPUs as "node/index", from its view.
func apiGPUs(ps []api.Placement) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		for _, g := range p.GPUs {
			out[gpuKey(p.Node, g)] = true
		}
	}
	return out
}

// storeGPUs is apiGPUs from the attempt's record.
func storeGPUs(ps []store.Placement) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		for _, g := range p.GPUs {
			out[gpuKey(p.Node, g.Index)] = true
		}
	}
	return out
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
func takerRecord(ctx context.Context, m *Master, id int64, recs map[int64]store.Job) (store.Job, error) {
	if rec, ok := recs[id]; ok {
		return rec, nil
	}
	var rec store.Job
	if j := m.pub.reads().job(id); j != nil {
		rec = j.rec
	} else {
		var err error
		rec, err = m.st.Job(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			rec = store.Job{ID: id}
		} else if err != nil {
			return store.Job{}, fmt.Errorf("read job %d, which preempted job's attempt: %w", id, err)
		}
	}
	recs[id] = rec
	return rec, nil
}
