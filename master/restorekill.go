package master

import (
	"context"
	"fmt"
	"time"

	"github.com/allot-sched/allot/store"
)

// killedPreempting gives, for each of job j's tasks (recs) restored
// killing whose kill came while it was being preempted, by its index,
// that preemption's deadline: its request (the transition to preempting
// of the same attempt, the last before the kill) plus its pool's grace,
// which its agent kills at if it comes before the kill's grace ends
// (sendAll). The store keeps no deadline; before, the restarted master
// counted the kill_grace in full from the kill, and its views and
// forecast said a later end than the agent's, and than before the
// restart. Nil where no task is killing.
func (r *restorer) killedPreempting(ctx context.Context, j *mjob, recs []store.Task) (map[int]time.Time, error) {
	killing := map[int]store.Task{}
	for _, rec := range recs {
		if rec.State == store.TaskKilling {
			killing[rec.Index] = rec
		}
	}
	if len(killing) == 0 {
		return nil, nil
	}
	kills, err := r.m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID, To: string(store.TaskKilling)})
	if err != nil {
		return nil, fmt.Errorf("read its kills: %w", err)
	}
	preempts, err := r.m.st.Events(ctx, store.EventFilter{JobID: j.rec.ID, To: string(store.TaskPreempting)})
	if err != nil {
		return nil, fmt.Errorf("read its preemptions: %w", err)
	}
	grace := poolGrace(r.m.cfg, j.rec.Pool)
	out := map[int]time.Time{}
	for i, rec := range killing {
		kill, ok := lastEventOf(kills, rec, rec.UpdatedAt)
		if !ok || kill.From != string(store.TaskPreempting) {
			continue
		}
		if p, ok := lastEventOf(preempts, rec, kill.At); ok {
			out[i] = p.At.Add(grace)
		}
	}
	return out, nil
}

// lastEventOf is the last of evs (oldest first) of task rec's attempt
// at or before at.
func lastEventOf(evs []store.Event, rec store.Task, at time.Time) (store.Event, bool) {
	var last store.Event
	found := false
	for _, e := range evs {
		if e.Index == rec.Index && e.Attempt == rec.Attempt && !e.At.After(at) {
			last, found = e, true
		}
	}
	return last, found
}
