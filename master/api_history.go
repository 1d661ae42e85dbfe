package master

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// maxJobIDs bounds the job ids a history page names in its queries of
// attempts and usage; a longer page reads its id range.
const maxJobIDs = 1000

// defaultHistoryWindow is /history's window when no since is given.
const defaultHistoryWindow = 24 * time.Hour

// handleHistory lists the jobs active in a window (submitted before its
// end and not ended before its start), as sacct does: one record per job
// with its wait, elapsed time, attempts, GPU-hours and exit code, from the
// store, so that it survives restarts.
func (ca *clusterAPI) handleHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until", "user", "project", "pool", "state", "limit", "cursor"); err != nil {
		ca.fail(w, err)
		return
	}
	since, until, err := ca.window(q.Get("since"), q.Get("until"), defaultHistoryWindow)
	if err != nil {
		ca.fail(w, err)
		return
	}
	f := store.JobFilter{User: q.Get("user"), Project: q.Get("project"), Pool: q.Get("pool")}
	if f.States, err = parseStates(q.Get("state")); err != nil {
		ca.fail(w, err)
		return
	}
	if f.User != "" {
		// As GET /jobs: a typo is not an empty history.
		if err := (jobsQuery{ca.server}).checkUser(r.Context(), f.User, principalOf(r)); err != nil {
			ca.fail(w, err)
			return
		}
	}
	f.Projects, f.OrUser = visibleTo(principalOf(r))
	pg, err := pageQuery(r, "history")
	if err != nil {
		ca.fail(w, err)
		return
	}
	if pg != nil {
		f.AfterID, f.Limit = pg.cursor, pg.limit
	}
	out, err := ca.history(r.Context(), f, since, until)
	if err != nil {
		ca.fail(w, err)
		return
	}
	ca.excludeHeld(out)
	if pg == nil {
		writeJSON(w, http.StatusOK, out)
		return
	}
	page := api.HistoryPage{Jobs: out}
	if len(out) > 0 {
		page.Next = nextCursor(len(out), pg.limit, out[len(out)-1].ID)
	}
	writeJSON(w, http.StatusOK, page)
}

// excludeHeld takes out of each record's WaitS the time its job was held
// while queued (heldOf, the fairness audit's rule), which it gives as
// HeldS: a job its owner held waited on no one (trial 2026-11-29d D12).
// The audit reads ca.history's whole waits and takes the holds out
// itself (countWait).
func (ca *clusterAPI) excludeHeld(out []api.HistoryRecord) {
	splits := ca.m.waits.splits(out, ca.m.pub.reads(), ca.m.now().Unix())
	for i := range out {
		held := heldOf(out[i].WaitS, splits[out[i].ID])
		out[i].WaitS -= held
		out[i].HeldS = held
	}
}

// history returns the records of the jobs f selects that were active in
// [since, until), oldest first. The store selects the window, and the
// attempts and usage read are those of the jobs' id range only (or of the
// jobs themselves, when they are few and spread), so that a page
// (f.Limit) costs what its jobs do.
func (ca *clusterAPI) history(ctx context.Context, f store.JobFilter, since, until time.Time) ([]api.HistoryRecord, error) {
	f.SubmittedBefore, f.ActiveSince = until, since
	jobs, err := ca.m.st.Jobs(ctx, f)
	if err != nil || len(jobs) == 0 {
		return []api.HistoryRecord{}, err
	}
	from, to := jobs[0].ID, jobs[len(jobs)-1].ID
	// A page spread over a long id range (one user's jobs among a
	// million) reads its own jobs' attempts and usage, not the range's.
	var ids []int64
	if int(to-from) > 2*len(jobs) && len(jobs) <= maxJobIDs {
		ids = make([]int64, len(jobs))
		for i, j := range jobs {
			ids[i] = j.ID
		}
	}
	atts, err := ca.m.st.Attempts(ctx, store.AttemptFilter{FromJobID: from, ToJobID: to, JobIDs: ids})
	if err != nil {
		return nil, err
	}
	byJob := map[int64][]store.Attempt{}
	for _, a := range atts {
		byJob[a.JobID] = append(byJob[a.JobID], a)
	}
	gpuSeconds, err := ca.jobGPUSeconds(ctx, from, to, ids)
	if err != nil {
		return nil, err
	}
	now := ca.m.now()
	out := make([]api.HistoryRecord, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, historyOf(j, byJob[j.ID], gpuSeconds[j.ID], now))
	}
	return out, nil
}

// jobGPUSeconds sums the GPU-seconds of the jobs with ids in [from, to]:
// their stored usage records, and what their open attempts used since
// their last record.
func (ca *clusterAPI) jobGPUSeconds(ctx context.Context, from, to int64, ids []int64) (map[int64]float64, error) {
	out := map[int64]float64{}
	f := store.UsageFilter{FromJobID: from, ToJobID: to, JobIDs: ids, Limit: 10000}
	for {
		page, err := ca.m.st.Usage(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, u := range page {
			out[u.JobID] += u.GPUSeconds
		}
		if len(page) < f.Limit {
			break
		}
		f.AfterID = page[len(page)-1].ID
	}
	ca.m.lock()
	defer ca.m.unlock()
	now := ca.m.now()
	for id, j := range ca.m.jobs {
		if id < from || id > to {
			continue
		}
		for _, t := range j.tasks {
			if u := usageOf(t, now); u != nil {
				out[id] += u.GPUSeconds
			}
		}
	}
	return out, nil
}

// historyOf is one job's record.
func historyOf(j store.Job, atts []store.Attempt, gpuSeconds float64, now time.Time) api.HistoryRecord {
	h := api.HistoryRecord{ID: j.ID, Name: j.Name, User: j.User, Project: j.Project, Pool: j.Pool,
		State: string(j.State), Slots: j.Slots, SubmittedAt: j.SubmittedAt, Attempts: len(atts),
		GPUHours: gpuSeconds / 3600}
	if j.State == store.JobQueued && j.Held() {
		h.State = api.JobStateHeld // as allot jobs shows it (trial 2026-11-29c C4)
	}
	tasks := map[int]bool{}
	var first, last *store.Attempt
	var exited time.Time // the last attempt's exit
	killing := false     // an attempt of the job is still being killed
	for i := range atts {
		a := &atts[i]
		tasks[a.Index] = true
		killing = killing || a.EndedAt.IsZero()
		if first == nil || a.StartedAt.Before(first.StartedAt) {
			first = a
		}
		if !a.EndedAt.IsZero() && (last == nil || a.EndedAt.After(last.EndedAt)) {
			last = a
		}
		x := a.ExitedAt
		if x.IsZero() {
			x = a.EndedAt
		}
		if x.After(exited) {
			exited = x
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
		runs := attemptRuns(atts, now)
		for _, r := range runs {
			h.ElapsedS += int64(r[1].Sub(r[0]).Seconds())
		}
		h.WaitS = int64(queuedFor(j, runs, last, end).Seconds())
	} else {
		h.WaitS = int64(end.Sub(j.SubmittedAt).Seconds())
	}
	if last != nil && j.State.Terminal() {
		h.ExitCode, h.Reason = last.ExitCode, last.Reason
		switch {
		case j.State == store.JobKilled && last.EndState != store.AttemptKilled && j.Reason != "":
			// Killed while it waited: its last attempt (preempted,
			// failed) is not why it ended.
			h.Reason = j.Reason
		case j.State == store.JobFailed && last.EndState != store.AttemptFailed && j.Reason != "":
			// Failed by its exit actions (max_retries, on_preempt:
			// fail) or a loss: its last attempt's preemption is not why
			// it failed; the job's reason says (failedReason, trial
			// 2026-11-29d D4).
			h.Reason = j.Reason
		}
		if j.Kind == store.KindExperiment {
			experimentEnd(&h, j, last)
		}
	}
	return h
}

// experimentEnd gives an ended experiment's record the job's end, not
// its last trial's: its reason counts the trials ("2 of 4 trials
// completed; 2 failed"), and its exit code is the last trial's only
// where that trial ended as the experiment did (completed, or failed),
// else none: a completed search whose last trial exited 1 read as a
// failed job (trial 2026-11-29i I3).
func experimentEnd(h *api.HistoryRecord, j store.Job, last *store.Attempt) {
	if j.Reason != "" {
		h.Reason = j.Reason
	}
	agrees := j.State == store.JobCompleted && last.EndState == store.AttemptCompleted ||
		j.State == store.JobFailed && last.EndState == store.AttemptFailed
	if !agrees {
		h.ExitCode = nil
	}
}

// attemptRuns are the spans when some attempt of the job ran, merged and
// in order: an attempt runs from its start to its processes' exit, as its
// GPU-hours do (not to when the master heard of it, which a master or
// agent outage delays), or to now while it is open (also one whose kill
// is under way). ELAPSED is their sum, as sacct's Elapsed counts the
// runs of a requeued job and not the time it was queued again.
func attemptRuns(atts []store.Attempt, now time.Time) [][2]time.Time {
	var runs [][2]time.Time
	for _, a := range atts {
		end := cmp.Or(a.ExitedAt, a.EndedAt)
		if a.EndedAt.IsZero() {
			end = now
		}
		if end.After(a.StartedAt) {
			runs = append(runs, [2]time.Time{a.StartedAt, end})
		}
	}
	slices.SortFunc(runs, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var merged [][2]time.Time
	for _, r := range runs {
		if n := len(merged); n > 0 && !r[0].After(merged[n-1][1]) {
			if r[1].After(merged[n-1][1]) {
				merged[n-1][1] = r[1]
			}
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// queuedFor is how long the job waited with none of its attempts running:
// from submission to its first start, each requeue's wait between runs,
// and the wait since its last run while it is queued again (to now), or
// until it was killed waiting. A job that ended with its last run waited
// no more.
func queuedFor(j store.Job, runs [][2]time.Time, last *store.Attempt, end time.Time) time.Duration {
	if len(runs) == 0 {
		return max(end.Sub(j.SubmittedAt), 0)
	}
	wait := max(runs[0][0].Sub(j.SubmittedAt), 0)
	for i := 1; i < len(runs); i++ {
		wait += runs[i][0].Sub(runs[i-1][1])
	}
	tail := end.Sub(runs[len(runs)-1][1])
	waiting := !j.State.Terminal() && j.State != store.JobRunning
	killedWaiting := j.State == store.JobKilled && last != nil && last.EndState != store.AttemptKilled
	if tail > 0 && (waiting || killedWaiting) {
		wait += tail
	}
	return wait
}
