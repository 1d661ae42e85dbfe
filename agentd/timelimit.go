package agentd

import (
	"context"
	"errors"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/backstop"
)

// The time limits' backstop. The master kills an attempt at its job's
// hard time limit itself; but a master whose store is unavailable
// changes nothing, and one out of reach sends nothing, so that a limit
// falling then was applied only once it was back, the job running (and
// charged) past its limit for the outage's length (trial r R14). Every
// reply of the master says when the node's attempts reach their limits
// (api.TimeLimit), and the agent kills, as the master's time-limit kill
// would (SIGTERM, then SIGKILL after the pool's kill_grace), an attempt
// whose limit passed limitSlack ago while the master has not stopped it.
// The slack leaves the master's own kill, which its timer sends at the
// deadline, time to arrive first: in normal operation the master acts,
// and what it decides does not change. The exit report says that the
// agent stopped it at its limit (api.Report.StoppedAtLimit), and the
// master ends it as its own time-limit kill does. Without time limits
// in the replies (an older master) nothing is stopped.

// limitSlack is how long after an attempt's deadline the agent waits
// for the master's kill before it kills the attempt itself; a variable
// for tests.
var limitSlack = backstop.Slack

// limitState is the attempts' time limits as the master last told them
// (package backstop's rules, which the Kubernetes backend shares).
// Guarded by Agent.mu.
type limitState struct{ backstop.Limits }

// heardLimitsLocked records the time limits of a reply that arrived at
// at; registration says it is a registration's, which starts heard over
// (the agent may have registered with another master process, perhaps
// an older one). The caller holds mu.
func (a limiter) heardLimitsLocked(at time.Time, ls []api.TimeLimit, registration bool) {
	if a.limits.Heard(at, ls, registration) {
		a.broadcast()
	}
}

// limited is an attempt the backstop stops now.
type limited struct {
	att   *attempt
	grace time.Duration
}

// dueAt marks and returns the attempts whose limit passed limitSlack
// before now and whom nothing else stops: no command of the master's
// (it stopped them itself), nor the fence, nor the agent's own stop;
// and when the next one is due (zero for none). The caller holds mu.
func (s *limitState) dueAt(now time.Time, tasks map[agent.TaskID]*attempt, stopping bool) (due []limited, next time.Time) {
	if stopping {
		return nil, time.Time{}
	}
	for id, att := range tasks {
		d, ok := s.Of(id)
		if !ok || att.exited || att.fenced != "" || att.stopped != "" || att.limited != "" {
			continue
		}
		if fire := d.Fire(limitSlack); now.Before(fire) {
			if next.IsZero() || fire.Before(next) {
				next = fire
			}
			continue
		}
		att.limited = d.Note(limitSlack)
		att.stopped = api.CommandKill // the master's kill, should it come, is a repeat
		due = append(due, limited{att: att, grace: killGrace(att.spec)})
	}
	return due, next
}

// killGrace is the pool's kill_grace that the master sent with the
// attempt's start; none, from a master that sent none, kills at once.
func killGrace(spec agent.TaskSpec) time.Duration {
	if spec.KillGraceS == nil {
		return 0
	}
	return time.Duration(max(*spec.KillGraceS, 0)) * time.Second
}

// limitLoop kills the attempts past their time limits that the master
// has not stopped (limitState.dueAt), until ctx is done.
func (a limiter) limitLoop(ctx context.Context) {
	runDue(ctx, a.Agent, func(now time.Time) ([]limited, time.Time) {
		return a.limits.dueAt(now, a.tasks, a.leaving || a.closing)
	}, a.limitStop)
}

// limitStop kills one attempt as the master's time-limit kill does: its
// process group gets SIGTERM, and SIGKILL once the kill_grace is over.
func (a limiter) limitStop(d limited) {
	id := d.att.spec.ID()
	err := d.att.task.Kill(d.grace)
	a.mu.Lock()
	note := d.att.limited
	if errors.Is(err, agent.ErrTaskDone) {
		// It ended by itself meanwhile: its report says how.
		d.att.limited = ""
	}
	a.mu.Unlock()
	switch {
	case errors.Is(err, agent.ErrTaskDone):
	case err != nil:
		a.log.Warn("time limit: kill incomplete", "task", id.String(), "err", err)
	default:
		a.log.Warn("time limit: killing the attempt, as the master has not", "task", id.String(), "kill_grace", d.grace, "why", note)
	}
}

// limitReportLocked marks the exit report of an attempt the backstop
// stopped, which ended killed: its Error says so, and StoppedAtLimit
// where the master knows the field (forMasterLocked). The caller holds
// mu.
func (a limiter) limitReportLocked(att *attempt, rep *api.Report) {
	backstop.Mark(rep, att.limited)
}

// forMasterLocked is the reports as the master the agent registered with
// takes them: StoppedAtLimit only where it sent time limits since (an
// older master refuses the field as unknown; its words stay in Error).
// The caller holds mu.
func (a limiter) forMasterLocked(reps []api.Report) []api.Report {
	return backstop.ForMaster(reps, a.limits.Known())
}
