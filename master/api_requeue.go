package master

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// A job's requeue: POST /jobs/{id}/requeue, with {"hold": true} its
// requeue and hold (Slurm's scontrol requeue and requeuehold; with allot
// job release, suspend and resume). Its tasks that run or start are
// stopped exactly as a preemption stops them: each is persisted
// preempting, with cause store.CauseRequeued and a reason naming who
// asked, then asked to checkpoint within its pool's grace
// (CommandPreempt); once its attempt ends preempted it waits again, and
// its next attempt resumes from the same CHECKPOINT_ROOT/JOB/TASK. A
// requeue charges no preemption budget (no pass decided it) but counts
// as a requeue against the job's exit actions, as every preemption
// does: a task those would fail is not requeued (409).
//
// Who may: whoever may kill the job (its owner, its project's lead, an
// admin: mayKillJob), since a requeue only gives up the GPUs it holds.
// A job that is not preemptible may be requeued too: preemptibility
// guards a job from other users' work, and the owner's requeue is the
// owner's choice (a lead or admin may kill it as well, which costs more).
// A queued job has nothing to requeue: the request changes nothing and
// says so (Requeued 0), but for --hold, which holds it. A job that has
// ended cannot be requeued (409 naming its end).

// requeuedLead begins the reason of a requeued task's transitions
// (requeueReason), by which the end of its attempt (agents.go's
// finishTransitions) and queuedReason tell a requeue from a preemption.
const requeuedLead = "requeued by "

// requeueHoldReason ends the reason of a hold that a requeue made
// (--hold), by which the export tells it from a hold alone
// (jobChangeOf): it may hold a job whose tasks still run, which a hold
// alone may not.
const requeueHoldReason = "with its requeue"

func (ja jobRequeues) handleRequeueJob(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	var req api.Requeue
	data, err := readBody(w, r)
	if err == nil && len(bytes.TrimSpace(data)) > 0 {
		err = decodeStrict(data, &req)
	}
	if err != nil {
		ja.fail(w, err)
		return
	}
	if err := ja.m.access.mayKillJob(r, id); err != nil {
		ja.m.access.deny(w, r, err)
		return
	}
	n, held, err := ja.Requeue(r.Context(), id, req.Hold, holderOf(r))
	if err != nil {
		ja.fail(w, err)
		return
	}
	noteAudit(r.Context(), "%s", requeueDetail(n, held, req.Hold))
	view, err := ja.job(r.Context(), id, ja.asOf())
	if err != nil {
		ja.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.RequeueReply{Job: ja.redactorFor(r).job(view), Requeued: n, Held: held})
}

// handleRequeueJobs requeues a list of jobs in one step (POST
// /jobs/requeue), as POST /jobs/kill kills one: each checked as the
// request for it alone is, all under one hold of the master's lock, so
// that no pass runs between two of them, each with its own result.
func (ja jobRequeues) handleRequeueJobs(w http.ResponseWriter, r *http.Request) {
	var req api.RequeueJobs
	if err := decodeBody(w, r, &req); err != nil {
		ja.fail(w, err)
		return
	}
	if len(req.IDs) == 0 || len(req.IDs) > maxKillJobs {
		writeError(w, http.StatusBadRequest, "ids", "ids: expected 1 to %d job IDs, got %d", maxKillJobs, len(req.IDs))
		return
	}
	res := make([]api.RequeueResult, len(req.IDs))
	n := make([]int, len(req.IDs))
	held := make([]bool, len(req.IDs))
	by := holderOf(r)
	ok := eachJob(ja.m, req.IDs, res, func(id int64) error { return ja.m.access.mayKillJob(r, id) },
		func(i int, id int64) (err error) {
			n[i], held[i], err = requeueLocked(r.Context(), ja.jobsAPI, id, req.Hold, by)
			return err
		})
	var done []string
	for i, id := range req.IDs {
		if !ok[i] {
			done = append(done, fmt.Sprintf("%d: refused (%d)", id, res[i].Status))
			continue
		}
		done = append(done, fmt.Sprintf("%d: %s", id, requeueDetail(n[i], held[i], req.Hold)))
		view, err := ja.job(r.Context(), id, ja.asOf())
		if err != nil {
			res[i].Status, res[i].Error = killError(ja.m, fmt.Errorf("requeued, but reading it back: %w", err))
			continue
		}
		res[i].Reply = &api.RequeueReply{Job: ja.redactorFor(r).job(view), Requeued: n[i], Held: held[i]}
	}
	noteAudit(r.Context(), "%s", strings.Join(done, "; "))
	writeJSON(w, http.StatusOK, res)
}

// requeueDetail is the audit entry's account of a requeue.
func requeueDetail(n int, held, hold bool) string {
	d := "requeued " + plural.Count(n, "task")
	if n == 0 {
		d = "nothing to requeue: no task running or starting"
	}
	switch {
	case held:
		d += "; held"
	case hold:
		d += "; already held"
	}
	return d
}

// Requeue requeues job id in by's name, and holds it too when hold says
// so; it returns how many tasks it asked to checkpoint, and whether it
// held the job. Tests call it directly.
func (ja jobRequeues) Requeue(ctx context.Context, id int64, hold bool, by string) (requeued int, held bool, err error) {
	ja.m.lock()
	defer ja.m.unlock()
	return requeueLocked(ctx, ja.jobsAPI, id, hold, by)
}

// requeueLocked is Requeue for a caller that holds the lock. The tasks'
// transitions and the hold are stored in one transaction before any
// command goes out.
func requeueLocked(ctx context.Context, ja *jobsAPI, id int64, hold bool, by string) (int, bool, error) {
	j, ok := ja.m.jobs[id]
	if !ok || j.rec.State.Terminal() {
		err := ja.notLive(ctx, id) // 404, or 409 naming its end
		if he, ok := err.(*httpError); ok && he.status == http.StatusConflict {
			he.msg += ": only a running, starting or queued job can be requeued"
		}
		return 0, false, err
	}
	tasks, err := requeueTasks(ja, j)
	if err != nil {
		return 0, false, err
	}
	hold = hold && !j.rec.Held()
	if len(tasks) == 0 && !hold {
		return 0, false, nil
	}
	now := ja.m.now()
	reason := requeueReason(by, now)
	ops := make([]*taskOp, len(tasks))
	for i, t := range tasks {
		ops[i] = &taskOp{t: t, tr: store.TaskTransition{JobID: id, Index: t.rec.Index, From: t.rec.State,
			To: store.TaskPreempting, Attempt: t.rec.Attempt, At: now, Reason: reason, Cause: store.CauseRequeued}}
	}
	var rec store.Job
	err = ja.m.st.Update(ctx, func(tx store.Tx) error {
		for _, op := range ops {
			res, err := tx.TransitionTask(ctx, op.tr)
			if err != nil {
				return err
			}
			op.rec = res
		}
		if !hold {
			return nil
		}
		var err error
		rec, err = tx.HoldJob(ctx, store.JobHold{ID: id, Hold: true, By: by, At: now, Reason: requeueHoldReason})
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return 0, false, &httpError{status: http.StatusConflict, msg: fmt.Sprintf("job %d changed meanwhile: %v; try again", id, err)}
	}
	if err != nil {
		return 0, false, fmt.Errorf("requeue job %d: %w", id, err)
	}
	grace := poolGrace(ja.m.cfg, j.rec.Pool)
	for _, op := range ops {
		ja.m.setTask(op.t, op.rec)
		op.t.preempted = ja.m.planner.nextLaunch()
		ja.m.sendAll(op.t, api.CommandPreempt, grace)
	}
	if hold {
		setJob(ja.m, j, rec)
		j.entryGen = 0 // its entry is made anew (snapJob): it waits for nothing
	}
	ja.m.planner.roster.touch(j)
	ja.m.pub.markJob(j)
	ja.m.log.Info("job requeued", "job", id, "by", by, "tasks", len(ops), "held", hold)
	ja.m.kick()
	return len(ops), hold, ja.m.settleJob(ctx, j, ja.m.now())
}

// requeueTasks are job j's tasks a requeue stops: those starting or
// running. A task being moved or resized is refused (its checkpoint
// restarts it on its reservation), and so is one that its job's exit
// actions would fail rather than requeue (on_preempt: fail, or
// max_retries reached); one preempting or being killed already is left
// as it is.
func requeueTasks(ja *jobsAPI, j *mjob) ([]*mtask, error) {
	ea := exitActionsOf(ja.m.cfg, j)
	fail, maxRetries := ea.rule()
	var out []*mtask
	for _, t := range j.tasks {
		if t.rec.State == store.TaskPreempting && t.Replacement.Replacing() {
			return nil, &httpError{status: http.StatusConflict, msg: fmt.Sprintf(
				"job %d: task %d is being moved or resized; requeue it once its checkpoint has landed", j.rec.ID, t.rec.Index)}
		}
		if t.rec.State != store.TaskStarting && t.rec.State != store.TaskRunning {
			continue
		}
		if !lifecycle.ExitRequeues(fail, maxRetries, t.Retries) {
			return nil, &httpError{status: http.StatusConflict, msg: fmt.Sprintf(
				"job %d: its exit actions (%s) would fail task %d rather than requeue it; kill the job instead, or let it end",
				j.rec.ID, ea.failNote(t.Retries), t.rec.Index)}
		}
		out = append(out, t)
	}
	return out, nil
}

// requeueReason is the reason of a requeued task's transition to
// preempting: who asked, and when.
func requeueReason(by string, at time.Time) string {
	return requeuedLead + by + " at " + at.UTC().Format(time.DateTime[:len(time.DateTime)-3]) + " UTC"
}

// requeuedEnd is the reason of the end of the attempt of a task whose
// requeue (reason) it ends, and of its return to the queue, which says
// what the attempt left in its checkpoint directory (ckpt, by its
// agents: ckptwords.go): a --wrap job or a notebook that never writes
// $ALLOT_CHECKPOINT_DIR starts over (trial 2026-11-29c C5), and where no
// agent said, neither claims a checkpoint.
func requeuedEnd(reason string, ckpt store.Checkpoint) (ended, then string) {
	to, _, _ := resumeWords(ckpt)
	return "stopped for a checkpoint: " + reason, reason + ", waiting to " + to
}

// requeuedTask reports whether reason is a requeued task's (requeueReason,
// requeuedEnd).
func requeuedTask(reason string) bool { return strings.HasPrefix(reason, requeuedLead) }

// requeuedView is requeued attempt a, by its preempting event d (the
// requeue's), for the explanation.
func requeuedView(a store.Attempt, d store.Event) api.Preemption {
	return api.Preemption{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(), Why: d.Reason}
}

// requeuedSentence says who requeued a job's attempts and when, apart
// from its preemptions, one request at a time: " Its task 0 was
// requeued by ana at 2026-05-01 12:00 UTC (attempt 1), and resumes from
// its checkpoint if it wrote one." With several, one sentence counts them:
// " Its task 0 was requeued twice, each time to resume from its checkpoint
// if it wrote one: by ana at
// ... (attempt 1) and by bob at ... (attempt 2)." "" for none. ckpt is
// what the attempts left in their checkpoint directories, all of them
// (foldCheckpoint): "resumes from its checkpoint", "starts over: it
// wrote no checkpoint", or as above where it is unknown or differs.
func requeuedSentence(rs []api.Preemption, ckpt store.Checkpoint) string {
	if len(rs) == 0 {
		return ""
	}
	reqs := requeueRequests(rs)
	one := true // a single task throughout: its attempts alone name them
	for _, r := range rs {
		one = one && r.Task == rs[0].Task
	}
	phrases := make([]string, len(reqs))
	for i, req := range reqs {
		phrases[i] = strings.TrimPrefix(req[0].Why, "requeued ") + " (" + requeuedAttempts(req, one) + ")"
	}
	// Whether it wrote a checkpoint is the task's, as its agents said
	// (requeuedEnd).
	to, does, several := resumeWords(ckpt)
	subject := "Its tasks were"
	if one {
		subject, to = fmt.Sprintf("Its task %d was", rs[0].Task), strings.Replace(to, ": ", ", as ", 1)
	} else {
		does, to = several, strings.Replace(several, ": ", ", as ", 1)
	}
	if len(reqs) == 1 {
		return fmt.Sprintf(" %s requeued %s, and %s.", subject, phrases[0], does)
	}
	return fmt.Sprintf(" %s requeued %s, each time to %s: %s.", subject, plural.Times(len(reqs)), to, andList(phrases))
}

// requeueRequests groups a job's requeued attempts, in the order of
// their ends, by the request that stopped them: one reason (who, at
// which minute) and each task at most once, since a request stops each
// of the job's tasks once.
func requeueRequests(rs []api.Preemption) [][]api.Preemption {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b api.Preemption) int { return a.At.Compare(b.At) })
	var reqs [][]api.Preemption
	for _, r := range rs {
		i := slices.IndexFunc(reqs, func(req []api.Preemption) bool {
			return req[0].Why == r.Why && !slices.ContainsFunc(req, func(o api.Preemption) bool { return o.Task == r.Task })
		})
		if i < 0 {
			reqs = append(reqs, nil)
			i = len(reqs) - 1
		}
		reqs[i] = append(reqs[i], r)
	}
	return reqs
}

// requeuedAttempts names the attempts one request stopped: "attempt 2"
// where one task is requeued throughout (one), else "task 0 attempt 1
// and task 1 attempt 2", or a count past three tasks.
func requeuedAttempts(req []api.Preemption, one bool) string {
	if one {
		return fmt.Sprintf("attempt %d", req[0].Attempt)
	}
	if len(req) > 3 {
		return plural.Count(len(req), "task")
	}
	parts := make([]string, len(req))
	for i, r := range req {
		parts[i] = fmt.Sprintf("task %d attempt %d", r.Task, r.Attempt)
	}
	return andList(parts)
}
