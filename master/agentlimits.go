package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// The time limits' backstop on the agents (agentd/timelimit.go). The
// master kills a task at its limit (timelimits.go), but not while its
// store is unavailable, nor while it is down or out of reach: a limit
// that fell then was applied once it was back, the task running and
// charged past it for the outage's length (trial r R14). So every reply
// to an agent says when its attempts reach their limits (timeLimitsFor),
// and the agent kills an attempt a few seconds past its limit where the
// master has not: its exit report says so (api.Report.StoppedAtLimit),
// and the master ends the task as its own time-limit kill does
// (stoppedAtLimit), its usage charged up to the exit the agent reports.
// Where the master itself kills late (an agent older than the field,
// an outage that cut the agent off too), the reason says how late and
// why (lateNote).

// agentLimits is the agents' side's part for the time limits the
// agents enforce (agents.limits).
type agentLimits struct{ *agents }

// timeLimitsFor is what node n's agent is told, with every registration
// and sync reply, of its attempts' time limits: for each attempt that
// starts or runs there (its part not exited) and has a limit, its
// deadline (the master's own, deadline) and the time left until it, in
// the order of the tasks. An attempt the master is killing for its limit
// is listed too: an agent sends api.Report.StoppedAtLimit only to a
// master that listed limits since it registered, and one that applied
// the limit while the master was down registers with a master that
// killed the attempt at its start; without the list its report would
// read as the master's late kill (trial 2026-11-29b B20). Callers hold
// mu.
func (ag agentLimits) timeLimitsFor(n *mnode) []api.TimeLimit {
	now := ag.m.now()
	var out []api.TimeLimit
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		p := t.part(n.rec.Name)
		at, ok := deadline(t)
		if !ok && t.Stop.AtLimit() {
			at, ok = deadlineOf(t)
		}
		if p == nil || p.state == partExited || !ok {
			continue
		}
		out = append(out, api.TimeLimit{Task: t.id(), LimitS: int64(t.job.rec.TimeLimit / time.Second),
			Deadline: at.UTC(), LeftMS: at.Sub(now).Milliseconds()})
	}
	slices.SortFunc(out, func(a, b api.TimeLimit) int {
		return cmp.Or(cmp.Compare(a.Task.JobID, b.Task.JobID), cmp.Compare(a.Task.TaskIndex, b.Task.TaskIndex))
	})
	return out
}

// exitedPart applies the exit of node's part p of t, marked exited
// (partExited); first, for a part its agent killed at the time limit
// (atLimit), the master's own time-limit kill (stoppedAtLimit), which
// its end then follows. Callers hold mu.
func (ag agentLimits) exitedPart(ctx context.Context, t *mtask, node string, p *mpart, atLimit bool) error {
	if atLimit && p.outcome == agent.OutcomeKilled {
		if err := ag.stoppedAtLimit(ctx, t, node); err != nil {
			return err
		}
	}
	return ag.partExited(ctx, t, node, p)
}

// stoppedAtLimit handles the exit report of node's part of t whose agent
// killed it at its time limit (api.Report.StoppedAtLimit), the part
// already marked exited: a task the master has not stopped is killed as
// its own time-limit kill does (killTask, cause time_limit, reason "time
// limit of 12m reached" and that the agent applied it), so that its end,
// once every part has exited, is that kill's; a task the master is
// killing for its limit already (it applied it late, after the store
// came back) keeps its kill, and its end says that the agent applied it
// at the limit (endNote). Callers hold mu.
func (ag agentLimits) stoppedAtLimit(ctx context.Context, t *mtask, node string) error {
	at, _ := deadlineOf(t)
	note := ag.m.planner.limits.agentNote(node, at)
	if t.Stop.Killing() {
		t.Stop.AgentApplied(limitReason(t) + note) // a time limit's kill only
		return nil
	}
	return ag.m.killTask(ctx, t, store.TaskKilled, limitReason(t)+note, store.CauseTimeLimit)
}

// deadlineOf is task t's deadline as deadline says, for a task in any
// state with an open attempt and a limit.
func deadlineOf(t *mtask) (time.Time, bool) {
	if t.att == nil || t.job.rec.TimeLimit <= 0 {
		return time.Time{}, false
	}
	at := t.att.first().Add(t.job.rec.TimeLimit)
	if t.att.started.After(at) {
		at = t.att.started
	}
	return at, true
}

// limitReason is the reason of task t's time-limit kill: "time limit of
// 12m reached" (of the limit it last heard, for an agent that applied a
// limit since removed).
func limitReason(t *mtask) string {
	if t.job.rec.TimeLimit <= 0 {
		return "time limit reached"
	}
	return fmt.Sprintf("time limit of %s reached", shortLimit(t.job.rec.TimeLimit))
}

// agentNote says, after a limit's reason, that node's agent applied the
// limit that fell at at, and why the master had not: its store was
// unavailable then, where the last outage spans at, or it was not
// running (it started after at).
func (tl *timeLimits) agentNote(node string, at time.Time) string {
	if out, ok := tl.m.health.lastOutageSpanning(at); ok {
		return fmt.Sprintf("; applied at the limit by node %s's agent: the store was unavailable %s", node, outageSpan(out))
	}
	if !tl.began.IsZero() && tl.began.After(at) {
		return fmt.Sprintf("; applied at the limit by node %s's agent: the master was not running until %s", node,
			tl.began.UTC().Format("15:04:05 UTC"))
	}
	return fmt.Sprintf("; applied at the limit by node %s's agent: the master had not stopped it", node)
}

// lateNote says, after the reason of a time-limit kill the master
// applies at now to a task whose limit fell at at, how late it is and
// why, where it knows why: its store was unavailable (the last outage
// spans at), or it was not running (it started after at). "" for a kill
// less than a second late, or late for no known cause (a tick late).
func (tl *timeLimits) lateNote(at, now time.Time) string {
	late := now.Sub(at)
	if late < time.Second {
		return ""
	}
	lateBy := shortLimit(late.Round(time.Second))
	if out, ok := tl.m.health.lastOutageSpanning(at); ok {
		return fmt.Sprintf("; killed %s after its limit: the store was unavailable %s", lateBy, outageSpan(out))
	}
	if !tl.began.IsZero() && tl.began.After(at) {
		return fmt.Sprintf("; killed %s after its limit: the master was not running until %s", lateBy, tl.began.UTC().Format("15:04:05 UTC"))
	}
	return ""
}

// outageSpan is an outage's span in words: "22:13:00-22:13:38 UTC".
func outageSpan(out store.StoreOutage) string {
	return out.From.UTC().Format("15:04:05") + "–" + out.Until.UTC().Format("15:04:05 UTC")
}
