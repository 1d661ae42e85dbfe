package master

import (
	"context"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A victim still checkpointing whose taker started elsewhere. A
// preemption is not withdrawn (preemptedby.go): the job it was for may
// start on other GPUs that freed while the victim checkpointed. allot
// job show's attempt and allot explain said so, but allot jobs kept the
// victim's reason "preempted for job 18 (...); checkpointing since ...",
// which read as if job 18 waited for those GPUs (trial r). The views of
// a job being preempted (the list, the job, its explanation) now add the
// same note to Preempting.Why and to the reason built from it. It reads
// the preempting event from the store, and the taker's records, for the
// few jobs being preempted, and only while the store is up: the lists
// answer from memory through an outage, without it.

// preemptingGPUs are the GPUs of the attempt of the first task of j
// being preempted (the one preemptingOf reports), as "node/index".
func preemptingGPUs(j *mjob) map[string]bool {
	for _, t := range j.tasks {
		if !taskPreempt(t) {
			continue
		}
		out := map[string]bool{}
		for _, p := range t.att.parts {
			for _, g := range p.gpus {
				out[gpuKey(p.node, g.Index)] = true
			}
		}
		return out
	}
	return nil
}

// notePreemptedElsewhere adds, to the views of jobs being preempted for
// a job that has started since on other GPUs (or was killed before it
// started), takerElsewhere's note: to Preempting.Why, and to the reason
// where the reason is the preemption's. Best effort: without the store,
// or where it fails, the views stay as they were.
func (ja *jobsAPI) notePreemptedElsewhere(ctx context.Context, views []api.Job) {
	if !slices.ContainsFunc(views, func(j api.Job) bool { return j.Preempting != nil }) || !ja.m.health.status().Up {
		return
	}
	reads := ja.m.pub.reads()
	starts := takerStarts{}
	for i := range views {
		v := &views[i]
		p := v.Preempting
		if p == nil {
			continue
		}
		j := reads.job(v.ID)
		if j == nil || j.preemptGPUs == nil {
			continue
		}
		evs, err := ja.m.st.Events(ctx, store.EventFilter{JobID: v.ID, To: string(store.TaskPreempting), Since: p.Since})
		if err != nil {
			ja.m.log.Debug("reading a preemption's event for the job's view", "job", v.ID, "err", err)
			continue
		}
		var e *store.Event
		for k := range evs {
			if evs[k].Index == p.Task && evs[k].ForJob != 0 {
				e = &evs[k]
			}
		}
		if e == nil {
			continue
		}
		note, err := takerElsewhere(ctx, ja.m, *e, j.preemptGPUs, time.Time{}, starts)
		if err != nil || note == "" {
			continue
		}
		was := preemptingReason(p, v.Tasks)
		r := *p
		r.Why = whyFor(r.Why, e.ForJob) + note
		v.Preempting = &r
		if v.Reason == was {
			v.Reason = preemptingReason(&r, v.Tasks)
		}
	}
}

// notePreemptedElsewhereOf is notePreemptedElsewhere of one view.
func (ja *jobsAPI) notePreemptedElsewhereOf(ctx context.Context, view *api.Job) {
	if view.Preempting == nil {
		return
	}
	views := []api.Job{*view}
	ja.notePreemptedElsewhere(ctx, views)
	*view = views[0]
}
