package master

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// Reads through a store outage. The job list and a live job's view
// (GET /jobs, /jobs/{id}, /jobs/{id}/explain) answer from the read
// view and the mirror when the store cannot: what the master holds in
// memory is every live job, its tasks and their open attempts, not the
// ended jobs that left it nor a job's ended attempts and event history.
// Such an answer is a 200 with api.PartialHeader saying what it lacks.
// What only the store holds (an ended job, logs, metrics, usage) gets
// 503 with Retry-After, as a write does.
const (
	partialEnded = "the master's store is unavailable: ended jobs that left the master's memory are " +
		"not listed until it is back"
	partialJob = "the master's store is unavailable: this job's view is the master's memory of it " +
		"(its tasks and their open attempts); its ended attempts and who preempted them are missing until the store is back"
)

// outage reports whether err is the store failing, as fail would answer
// 503 for it, so that a read can be answered from memory instead. It
// marks the store down when err says so (storeHealth.failing).
func (s server) outage(err error) bool {
	return isStoreFault(err) && s.m.health.failing(context.Background(), err)
}

// partial answers from memory for a store read that failed with err:
// when the store is failing, it marks the response with note (and that
// nothing is scheduled meanwhile, pausedNote) and reports true;
// otherwise the caller fails the request as usual.
func (s server) partial(w http.ResponseWriter, err error, note string) bool {
	if !s.outage(err) {
		return false
	}
	s.notePartial(w, note)
	return true
}

// notePartial marks a response answered from memory with note, the
// store being down, and with what the outage stops (pausedNote).
func (s server) notePartial(w http.ResponseWriter, note string) {
	w.Header().Set(api.PartialHeader, note+"; "+pausedNote(s.m.health.status(), s.m.now()))
}

// notePaused marks a response the master answered from memory while the
// store is down, though nothing it read was missing: its reasons and
// forecasts are the last pass's, which no pass replaces until the store
// is back. It leaves a note already set alone.
func (s server) notePaused(w http.ResponseWriter) {
	st := s.m.health.status()
	if st.Up || w.Header().Get(api.PartialHeader) != "" {
		return
	}
	w.Header().Set(api.PartialHeader, pausedNote(st, s.m.now()))
}

// pausedNote says what a store outage stops (docs/reliability.md): the
// master schedules nothing and times no agent out until the store is
// back, so a waiting job's reason and forecast are the last pass's and a
// task that ended meanwhile still holds its GPUs in the views. Time
// limits still act: the agents apply them (trial 2026-11-29b B15: the
// note said none did).
func pausedNote(st StoreStatus, now time.Time) string {
	return fmt.Sprintf("scheduling is paused: the master's store has been unavailable since %s (%s ago), "+
		"so no job starts or is preempted until it is back (time limits still end jobs: the agents apply them); reasons and start forecasts "+
		"are the last pass's, and tasks that ended meanwhile hold their GPUs until their ends are recorded",
		st.Since.UTC().Format(time.RFC3339), max(now.Sub(st.Since), 0).Round(time.Second))
}

// readUnavailable answers 503 for a read of what only the store keeps
// (what names it: "a job's logs", "usage records"), when err is the
// store failing; otherwise it fails the request as fail does.
func (s server) readUnavailable(w http.ResponseWriter, err error, what string) {
	if !s.outage(err) {
		s.fail(w, err)
		return
	}
	s.m.log.Debug("read refused: store unavailable", "request_id", w.Header().Get("X-Request-Id"), "err", err)
	s.m.health.countRefused()
	st := s.m.health.status()
	w.Header().Set("Retry-After", retryAfterSeconds)
	w.Header().Set(api.StoreOutageHeader, "1")
	writeError(w, http.StatusServiceUnavailable, "",
		"the master's store is unavailable (since %s): %s are kept there, not in the master's memory, "+
			"so they cannot be read until it is back; retry in a few seconds",
		st.Since.UTC().Format(time.RFC3339), what)
}

// memoryTasks returns a live job's tasks and their open attempts as the
// mirror holds them; ok is false when the job is not in the mirror. An
// attempt's running time is the one the mirror noted when its task went
// running (mattempt.runningAt), which a task being stopped (preempting,
// killing) keeps, as the store does.
func (m *Master) memoryTasks(id int64) (tasks []store.Task, atts []store.Attempt, ok bool) {
	m.lock()
	defer m.unlock()
	j := m.jobs[id]
	if j == nil || j.gone {
		return nil, nil, false
	}
	for _, t := range j.tasks {
		tasks = append(tasks, t.rec)
		if t.att == nil {
			continue
		}
		a := store.Attempt{JobID: id, Index: t.rec.Index, Number: t.att.number, StartedAt: t.att.started,
			Backfilled: t.att.Backfilled, RunningAt: t.att.runningAt}
		for _, p := range t.att.parts {
			a.Placement = append(a.Placement, store.Placement{Node: p.node, GPUs: append([]store.GPURef(nil), p.gpus...)})
		}
		atts = append(atts, a)
	}
	return tasks, atts, true
}

// recordOf is a job's record: the read view's for a live job, which
// needs no store read (and so answers through an outage), the store's
// otherwise.
func (ja *jobsAPI) recordOf(ctx context.Context, id int64) (store.Job, error) {
	if j := ja.m.pub.reads().job(id); j != nil {
		return j.rec, nil
	}
	rec, err := ja.m.st.Job(ctx, id)
	if err != nil {
		return store.Job{}, fmt.Errorf("read job %d: %w", id, err)
	}
	return rec, nil
}
