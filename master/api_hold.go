package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// A job's hold and release: POST /jobs/{id}/hold, /jobs/{id}/release and
// their lists, POST /jobs/hold and /jobs/release. A held job keeps its
// id, spec and submission time; no pass considers it until it is
// released (lifecycle/onhold.go; snapJob leaves it out). Both are
// idempotent, as Slurm's scontrol hold and release: holding a held job
// or releasing one not held changes nothing and says so (Changed
// false). Holding needs what a kill needs (the owner, or the project's
// lead, or an admin: mayKillJob), since it only keeps a job from
// starting; releasing what a change of the job needs (mayChangeJob),
// since it lets the job take slots, and a hold placed by someone other
// than the owner (an admin or a lead: Slurm's JobHeldAdmin) is released
// only by an admin or a lead of the job's project (releaseRule), so
// that a hold put on a runaway sweep sticks.

// holdAction is a hold (hold true) or a release, as the handlers and
// the audit name it.
type holdAction bool

func (h holdAction) verb() string {
	if h {
		return "hold"
	}
	return "release"
}

func (h holdAction) done() string {
	if h {
		return "held"
	}
	return "released"
}

func (ja jobHolds) handleHoldJob(w http.ResponseWriter, r *http.Request)    { ja.holdOne(w, r, true) }
func (ja jobHolds) handleReleaseJob(w http.ResponseWriter, r *http.Request) { ja.holdOne(w, r, false) }
func (ja jobHolds) handleHoldJobs(w http.ResponseWriter, r *http.Request)   { ja.holdList(w, r, true) }
func (ja jobHolds) handleReleaseJobs(w http.ResponseWriter, r *http.Request) {
	ja.holdList(w, r, false)
}

// mayHold authorizes a hold or release of job id (holdAction).
func (ac *access) mayHold(r *http.Request, id int64, hold holdAction) error {
	if hold {
		return ac.mayKillJob(r, id)
	}
	if err := ac.mayChangeJob(r, id); err != nil {
		return err
	}
	rec, err := ac.jobRecord(r.Context(), id)
	if err != nil {
		return err
	}
	return releaseRule(principalOf(r), rec)
}

// jobRecord is job id's record: the master's view of it, else the
// store's (an ended job); mayChangeJob has found it.
func (ac *access) jobRecord(ctx context.Context, id int64) (store.Job, error) {
	if j := ac.m.pub.reads().job(id); j != nil {
		return j.rec, nil
	}
	return ac.m.st.Job(ctx, id)
}

// releaseRule refuses p the release of job rec when someone other than
// its owner held it (an admin or a lead, the only others who may hold
// it) and p is neither an admin nor a lead of its project: the owner's
// own holds stay the owner's. The holder is the stored record's
// (held_by), so the rule holds across a restart of the master.
func releaseRule(p auth.Principal, rec store.Job) error {
	if !rec.Held() || rec.HeldBy == rec.User {
		return nil
	}
	what := fmt.Sprintf("releasing job %d, held by %s at %s rather than by its owner %s (whose own holds only are the owner's to release),",
		rec.ID, rec.HeldBy, rec.HeldAt.UTC().Format(time.DateTime[:len(time.DateTime)-3])+" UTC", ownerName(rec.User))
	return p.CanRaise(rec.Project, what)
}

// ownerName is a job's owner in a message.
func ownerName(user string) string {
	if user == "" {
		return "(none)"
	}
	return user
}

func (ja jobHolds) holdOne(w http.ResponseWriter, r *http.Request, hold holdAction) {
	id, err := pathID(r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	if err := ja.m.access.mayHold(r, id, hold); err != nil {
		ja.m.access.deny(w, r, err)
		return
	}
	changed, err := ja.Hold(r.Context(), id, bool(hold), holderOf(r))
	if err != nil {
		ja.fail(w, err)
		return
	}
	switch {
	case changed:
		noteAudit(r.Context(), "%s", hold.done())
	case bool(hold):
		noteAudit(r.Context(), "already held: nothing changed")
	default:
		noteAudit(r.Context(), "not held: nothing changed")
	}
	view, err := ja.job(r.Context(), id, ja.asOf())
	if err != nil {
		ja.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.HoldReply{Job: ja.redactorFor(r).job(view), Changed: changed})
}

// holdList holds or releases a list of jobs under one hold of the
// master's lock, each checked as the request for it alone is, with a
// result each, as POST /jobs/kill does.
func (ja jobHolds) holdList(w http.ResponseWriter, r *http.Request, hold holdAction) {
	req, valid := ja.jobList(w, r) // api.HoldJobs is api.KillJobs' shape
	if !valid {
		return
	}
	res := make([]api.HoldResult, len(req.IDs))
	changed := make([]bool, len(req.IDs))
	by := holderOf(r)
	ok := eachJob(ja.m, req.IDs, res, func(id int64) error { return ja.m.access.mayHold(r, id, hold) },
		func(i int, id int64) (err error) {
			changed[i], err = holdLocked(r.Context(), ja.jobsAPI, id, bool(hold), by)
			return err
		})
	var done, kept []string
	for i, id := range req.IDs {
		word := strconv.FormatInt(id, 10)
		if !ok[i] {
			kept = append(kept, fmt.Sprintf("%s (%d)", word, res[i].Status))
			continue
		}
		view, err := ja.job(r.Context(), id, ja.asOf())
		if err != nil {
			res[i].Status, res[i].Error = killError(ja.m, fmt.Errorf("%s, but reading it back: %w", hold.done(), err))
			continue
		}
		res[i].Reply = &api.HoldReply{Job: ja.redactorFor(r).job(view), Changed: changed[i]}
		if changed[i] {
			done = append(done, word)
		} else {
			kept = append(kept, word+" (unchanged)")
		}
	}
	d := hold.done() + " jobs " + strings.Join(done, ", ")
	if len(done) == 0 {
		d = hold.done() + " no job"
	}
	if len(kept) > 0 {
		d += "; not " + hold.done() + ": " + strings.Join(kept, ", ")
	}
	noteAudit(r.Context(), "%s", d)
	writeJSON(w, http.StatusOK, res)
}

// Hold holds job id (hold true) or releases it, in by's name, and
// reports whether that changed anything; tests call it directly.
func (ja jobHolds) Hold(ctx context.Context, id int64, hold bool, by string) (changed bool, err error) {
	ja.m.lock()
	defer ja.m.unlock()
	return holdLocked(ctx, ja.jobsAPI, id, hold, by)
}

// holdLocked is Hold for a caller that holds the lock. The hold is
// stored before the mirror changes; the next pass, kicked, leaves the
// job out (or takes it in again).
func holdLocked(ctx context.Context, ja *jobsAPI, id int64, hold bool, by string) (bool, error) {
	j, ok := ja.m.jobs[id]
	if !ok || j.rec.State.Terminal() {
		err := ja.notLive(ctx, id) // 404, or 409 naming its end
		if he, ok := err.(*httpError); ok && he.status == http.StatusConflict {
			he.msg += ": only a queued job can be " + holdAction(hold).done()
		}
		return false, err
	}
	// The rule is the simulator's too (lifecycle.JobRecord.HoldChange).
	change, refused := j.HoldChange(hold, j.active())
	if refused {
		return false, &httpError{status: http.StatusConflict, msg: holdRunningRefusal(id, j.rec.State, j.active())}
	}
	if !change {
		return false, nil
	}
	heldAt, at := j.rec.HeldAt, ja.m.now()
	rec, err := ja.m.st.HoldJob(ctx, store.JobHold{ID: id, Hold: hold, By: by, At: at, Reason: "through the API"})
	if errors.Is(err, store.ErrConflict) {
		return false, &httpError{status: http.StatusConflict, msg: fmt.Sprintf("job %d: %v", id, err)}
	}
	if err != nil {
		return false, fmt.Errorf("%s job %d: %w", holdAction(hold).verb(), id, err)
	}
	if !hold {
		// Its time on hold is no wait for the fairness audit (waitledger.go).
		ja.m.waits.hold(id, heldAt, at)
	}
	setJob(ja.m, j, rec)
	j.entryGen = 0 // its entry is made anew (snapJob): left out, or back in
	ja.m.planner.roster.touch(j)
	ja.m.pub.markJob(j)
	ja.m.log.Info("job "+holdAction(hold).done(), "job", id, "by", by)
	ja.m.kick()
	return true, nil
}

// holderOf names the request's caller as a hold names it: the user.
func holderOf(r *http.Request) string {
	if p := principalOf(r); p.User != "" {
		return p.User
	}
	return principalOf(r).Actor()
}

// heldPending is the pending reason a held job shows: who held it, when,
// and how to release it.
func heldPending(rec store.Job) *api.Pending {
	return &api.Pending{Reason: lifecycle.ReasonHeld,
		Message: fmt.Sprintf("held by %s at %s; `allot job release %d`", rec.HeldBy,
			rec.HeldAt.UTC().Format(time.DateTime[:len(time.DateTime)-3])+" UTC", rec.ID)}
}

// heldView is the api.Held of a held job's record, nil for one not held.
func heldView(rec store.Job) *api.Held {
	if !rec.Held() {
		return nil
	}
	return &api.Held{By: rec.HeldBy, At: rec.HeldAt.UTC()}
}

// eachJob runs a list request's two steps on its jobs ids: may, the
// caller's right to it, outside the master's lock, then do, under the
// lock once for them all (no pass between them), on those allowed. It
// returns whether each was done; res has the ID of each, and the
// Status and Error of those that were not.
func eachJob[R any](m *Master, ids []int64, res []api.JobResult[R], may func(id int64) error, do func(i int, id int64) error) []bool {
	ok := make([]bool, len(ids))
	for i, id := range ids {
		res[i].ID = id
		if err := may(id); err != nil {
			res[i].Status, res[i].Error = killError(m, err)
			continue
		}
		ok[i] = true
	}
	m.lock()
	defer m.unlock()
	for i, id := range ids {
		if !ok[i] {
			continue
		}
		if err := do(i, id); err != nil {
			ok[i] = false
			res[i].Status, res[i].Error = killError(m, err)
		}
	}
	return ok
}

// holdRunningRefusal is the 409 of a hold of job id, in state st, whose
// active tasks hold slots (lifecycle.CanHold refuses it): it offers the
// requeue with a hold first, the documented way to suspend a running
// job (its tasks checkpoint, then it waits held), before the kill,
// which loses what the tasks did since their last checkpoint (trial
// 2026-11-29d D5).
func holdRunningRefusal(id int64, st store.JobState, active int) string {
	return fmt.Sprintf("job %d is %s: it has %s holding slots, and a hold does not preempt; "+
		"to suspend it, requeue it held: allot job requeue %d --hold (its tasks checkpoint, then it waits "+
		"held until allot job release %d); else let it end, or kill it", id, st, plural.Count(active, "task"), id, id)
}
