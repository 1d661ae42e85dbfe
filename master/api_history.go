package master

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// defaultHistoryWindow is /history's window when no since is given.
const defaultHistoryWindow = 24 * time.Hour

// handleHistory lists the jobs active in a window (submitted before its
// end and not ended before its start), as sacct does: one record per job
// with its wait, elapsed time, attempts, GPU-hours and exit code, from the
// store, so that it survives restarts.
func (m *Master) handleHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until", "user", "project", "pool", "state"); err != nil {
		m.fail(w, err)
		return
	}
	since, until, err := m.window(q.Get("since"), q.Get("until"), defaultHistoryWindow)
	if err != nil {
		m.fail(w, err)
		return
	}
	f := store.JobFilter{User: q.Get("user"), Project: q.Get("project"), Pool: q.Get("pool")}
	if s := q.Get("state"); s != "" {
		if !slices.Contains(jobStates, store.JobState(s)) {
			m.fail(w, badRequest("state", "state %q: expected one of queued, running, completed, failed, killed", s))
			return
		}
		f.States = []store.JobState{store.JobState(s)}
	}
	f.Projects, f.OrUser = visibleTo(principalOf(r))
	out, err := m.history(r.Context(), f, since, until)
	if err != nil {
		m.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// history returns the records of the jobs f selects that were active in
// [since, until).
func (m *Master) history(ctx context.Context, f store.JobFilter, since, until time.Time) ([]api.HistoryRecord, error) {
	jobs, err := m.st.Jobs(ctx, f)
	if err != nil {
		return nil, err
	}
	atts, err := m.st.Attempts(ctx, store.AttemptFilter{})
	if err != nil {
		return nil, err
	}
	byJob := map[int64][]store.Attempt{}
	for _, a := range atts {
		byJob[a.JobID] = append(byJob[a.JobID], a)
	}
	usage, err := m.usageIn(ctx, time.Time{}.Add(time.Nanosecond), m.now().Add(time.Nanosecond))
	if err != nil {
		return nil, err
	}
	gpuSeconds := map[int64]float64{}
	for _, u := range usage {
		gpuSeconds[u.JobID] += u.GPUSeconds
	}
	now := m.now()
	out := []api.HistoryRecord{}
	for _, j := range jobs {
		if !j.SubmittedAt.Before(until) || (!j.EndedAt.IsZero() && j.EndedAt.Before(since)) {
			continue
		}
		out = append(out, historyOf(j, byJob[j.ID], gpuSeconds[j.ID], now))
	}
	return out, nil
}

// historyOf is one job's record.
func historyOf(j store.Job, atts []store.Attempt, gpuSeconds float64, now time.Time) api.HistoryRecord {
	h := api.HistoryRecord{ID: j.ID, Name: j.Name, User: j.User, Project: j.Project, Pool: j.Pool,
		State: string(j.State), Slots: j.Slots, SubmittedAt: j.SubmittedAt, Attempts: len(atts),
		GPUHours: gpuSeconds / 3600}
	tasks := map[int]bool{}
	var first, last *store.Attempt
	for i := range atts {
		a := &atts[i]
		tasks[a.Index] = true
		if first == nil || a.StartedAt.Before(first.StartedAt) {
			first = a
		}
		if !a.EndedAt.IsZero() && (last == nil || a.EndedAt.After(last.EndedAt)) {
			last = a
		}
	}
	h.Tasks = len(tasks)
	end := now
	if !j.EndedAt.IsZero() {
		t := j.EndedAt
		h.EndedAt, end = &t, t
	}
	if first != nil {
		t := first.StartedAt
		h.StartedAt = &t
		h.WaitS = int64(t.Sub(j.SubmittedAt).Seconds())
		h.ElapsedS = int64(end.Sub(t).Seconds())
	} else {
		h.WaitS = int64(end.Sub(j.SubmittedAt).Seconds())
	}
	if last != nil && j.State.Terminal() {
		h.ExitCode, h.Reason = last.ExitCode, last.Reason
	}
	return h
}
