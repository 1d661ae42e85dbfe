package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
)

// maxKillJobs bounds the list of one POST /jobs/kill.
const maxKillJobs = 1000

// handleKillJobs kills a list of jobs in one step (POST /jobs/kill): each
// is checked as POST /jobs/{id}/kill checks it, then every one allowed
// is killed under one hold of the master's lock, so that no scheduling
// pass applies a plan between two of the kills: killing a blocked job
// cannot start another of the list meanwhile, as the kills one request
// apart could (trial r R5). Each job gets its own result; the request
// fails as a whole only when it is malformed.
func (ja *jobsAPI) handleKillJobs(w http.ResponseWriter, r *http.Request) {
	req, ok := ja.jobList(w, r)
	if !ok {
		return
	}
	res := make([]api.KillResult, len(req.IDs))
	allowed := make([]bool, len(req.IDs))
	for i, id := range req.IDs {
		res[i].ID = id
		if err := ja.m.access.mayKillJob(r, id); err != nil {
			res[i].Status, res[i].Error = killError(ja.m, err)
			continue
		}
		allowed[i] = true
	}
	reason := "killed through the API by " + principalOf(r).Actor()
	ended := make([]bool, len(req.IDs))
	ja.m.lock()
	for i, id := range req.IDs {
		if !allowed[i] {
			continue
		}
		var err error
		if ended[i], err = killLocked(r.Context(), ja, id, reason); err != nil {
			allowed[i] = false
			res[i].Status, res[i].Error = killError(ja.m, err)
		}
	}
	ja.m.unlock()
	for i, id := range req.IDs {
		if !allowed[i] {
			continue
		}
		view, err := ja.job(r.Context(), id, ja.asOf())
		if err != nil {
			res[i].Status, res[i].Error = killError(ja.m, fmt.Errorf("killed, but reading it back: %w", err))
			continue
		}
		res[i].Reply = &api.KillReply{Job: ja.redactorFor(r).job(view), AlreadyEnded: ended[i]}
	}
	noteAudit(r.Context(), "%s", killJobsDetail(res))
	writeJSON(w, http.StatusOK, res)
}

// killLocked is ja.Kill for a caller that holds the lock.
func killLocked(ctx context.Context, ja *jobsAPI, id int64, reason string) (ended bool, err error) {
	j, ok := ja.m.jobs[id]
	if !ok || j.rec.State.Terminal() {
		// notLive answers 404 for no such job, and a conflict for one
		// that has ended.
		if err := ja.notLive(ctx, id); err != nil && !isConflict(err) {
			return false, err
		}
		return true, nil
	}
	return false, ja.kill(ctx, j, reason)
}

// killError is the status and message a kill of one job of a list gets
// for err, as the request for that job alone would have answered.
func killError(m *Master, err error) (int, string) {
	var ae *auth.Error
	if errors.As(err, &ae) {
		return ae.Status, ae.Msg
	}
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.msg
	}
	if isStoreFault(err) && m.health.failing(context.Background(), err) {
		m.health.countRefused()
		return http.StatusServiceUnavailable, "the master's store is unavailable: this job was not killed; try again"
	}
	m.log.Error("kill of a listed job failed", "err", err)
	return http.StatusInternalServerError, "internal error: see the master's log"
}

// killJobsDetail is the audit entry's account of a list's kills.
func killJobsDetail(res []api.KillResult) string {
	var killed, kept []string
	for _, x := range res {
		id := strconv.FormatInt(x.ID, 10)
		switch {
		case x.Reply != nil && x.Reply.AlreadyEnded:
			kept = append(kept, id+" (had already ended)")
		case x.Reply != nil:
			killed = append(killed, id)
		default:
			kept = append(kept, fmt.Sprintf("%s (%d)", id, x.Status))
		}
	}
	d := "killed jobs " + strings.Join(killed, ", ")
	if len(killed) == 0 {
		d = "killed no job"
	}
	if len(kept) > 0 {
		d += "; not killed: " + strings.Join(kept, ", ")
	}
	return d
}

// jobList reads the body of a request on a list of jobs (POST
// /jobs/kill, /jobs/hold and /jobs/release: api.KillJobs, api.HoldJobs),
// its IDs 1 to maxKillJobs; false when it answered with the error.
func (ja *jobsAPI) jobList(w http.ResponseWriter, r *http.Request) (api.KillJobs, bool) {
	var req api.KillJobs
	if err := decodeBody(w, r, &req); err != nil {
		ja.fail(w, err)
		return req, false
	}
	if len(req.IDs) == 0 || len(req.IDs) > maxKillJobs {
		writeError(w, http.StatusBadRequest, "ids", "ids: expected 1 to %d job IDs, got %d", maxKillJobs, len(req.IDs))
		return req, false
	}
	return req, true
}
