package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// A job's kill: POST /jobs/{id}/kill (Kill, which tests call directly).

func (ja *jobsAPI) handleKillJob(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	if err := ja.m.access.mayKillJob(r, id); err != nil {
		ja.m.access.deny(w, r, err)
		return
	}
	ended, err := ja.Kill(r.Context(), id, "killed through the API by "+principalOf(r).Actor())
	if err != nil {
		ja.fail(w, err)
		return
	}
	if ended {
		noteAudit(r.Context(), "had already ended: nothing killed")
	} else {
		noteAudit(r.Context(), "killed")
	}
	view, err := ja.job(r.Context(), id, ja.asOf())
	if err != nil {
		ja.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, api.KillReply{Job: ja.redactorFor(r).job(view), AlreadyEnded: ended})
}

// Kill kills a job: its idle tasks at once, its active ones through kill
// commands (persisted as killing first), as lifecycle.KillTo says, the
// simulator's rule too. The job is killed at once. Killing a job that has
// ended does nothing, and says so: ended is true.
func (ja *jobsAPI) Kill(ctx context.Context, id int64, reason string) (ended bool, err error) {
	ja.m.lock()
	defer ja.m.unlock()
	return killLocked(ctx, ja, id, reason) // api_killjobs.go
}

// kill kills the live job j; the caller holds the lock.
func (ja *jobsAPI) kill(ctx context.Context, j *mjob, reason string) error {
	id := j.rec.ID
	now := ja.m.now()
	var ops []*taskOp
	for _, t := range j.tasks {
		to, ok := lifecycle.KillTo(t.rec.State)
		if !ok {
			continue
		}
		tr := store.TaskTransition{JobID: id, Index: t.rec.Index, From: t.rec.State, To: to, Attempt: t.rec.Attempt,
			At: now, Reason: reason}
		ops = append(ops, &taskOp{t: t, tr: tr})
	}
	var rec store.Job
	err := ja.m.st.Update(ctx, func(tx store.Tx) error {
		for _, op := range ops {
			res, err := tx.TransitionTask(ctx, op.tr)
			if err != nil {
				return err
			}
			op.rec = res
		}
		var err error
		rec, err = tx.TransitionJob(ctx, store.JobTransition{ID: id, From: j.rec.State, To: store.JobKilled, At: now, Reason: reason})
		return err
	})
	if err != nil {
		return fmt.Errorf("kill job %d: %w", id, err)
	}
	for _, op := range ops {
		ja.m.setTask(op.t, op.rec)
		if op.rec.State == store.TaskKilling {
			op.t.Stop.Kill(store.TaskKilled, "")
			ja.m.sendAll(op.t, api.CommandKill, poolKillGrace(ja.m.cfg, j.rec.Pool))
		}
	}
	e := setJob(ja.m, j, rec)
	ja.m.metric.jobEnded(e.From, rec.State)
	ja.m.pub.markJob(j)
	ja.m.log.Info("job killed", "job", id, "reason", reason, "killing", j.active())
	ja.m.kick()
	if err := ja.m.agents.killHeld(ctx, j, reason); err != nil {
		// The kill stands: the next tick's checkLostNodes ends them.
		ja.m.log.Error("ending the attempts held on lost nodes", "job", id, "err", err)
	}
	return ja.m.settleJob(ctx, j, ja.m.now())
}

func isConflict(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == http.StatusConflict
}
