package master

import (
	"context"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// queued reports whether c is in node n's queue already (a restarted
// master queues the stops of the tasks it finds being stopped).
func queued(n *mnode, c api.Command) bool {
	return slices.ContainsFunc(n.commands, func(q api.Command) bool { return q.Type == c.Type && q.Task == c.Task })
}

// registeredRunning reconciles the attempts a registering agent runs
// with the master's: the master's attempts on the node that the agent
// lists neither running nor exited must be reported on in its first sync
// (n.reconcile: settleMissing); a stray one the agent runs (one the
// master ended, or never knew) is asked to checkpoint or killed
// (stray.go), strays counting those; one being stopped gets its stop
// again (stopAgain). It returns the commands for the reply.
//
// Only the running ones ran until the registration (heardRunning): an
// attempt the agent lists exited (api.Register.Exited) ended before, its
// report waiting for its output lines, which the master waits for too
// (exitSaid), and charges it until the exit that report gives (trial
// 2026-11-29a A10: an agent that listed it running had it charged, and
// timed, until the registration).
func registeredRunning(ctx context.Context, ag *agents, n *mnode, reg api.Register, now time.Time) (cmds []api.Command, strays int, err error) {
	runs, exited := map[agent.TaskID]bool{}, map[agent.TaskID]bool{}
	for _, id := range reg.Running {
		runs[id] = true
	}
	for _, id := range reg.Exited {
		exited[id] = true
	}
	ag.strays.releaseStrays(n, runs, exited)
	n.reconcile = map[agent.TaskID]bool{}
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		p := t.part(n.rec.Name)
		// As of this registration: a new agent process that lost the
		// report lists the attempt no more.
		p.exitSaid = exited[t.id()] && p.state != partExited
		switch {
		case runs[t.id()] || p.state == partExited || p.exitSaid:
		case !p.delivered:
			// Its start command is still queued and goes out with this reply.
		default:
			n.reconcile[t.id()] = true
		}
	}
	for _, id := range reg.Running {
		if !ag.heardRunning(id, n.rec.Name, now) {
			c, err := ag.strays.stray(ctx, n, id, now)
			if err != nil {
				return nil, 0, err
			}
			cmds = append(cmds, c)
			strays++
			continue
		}
		if err := listedRunning(ctx, ag, id, n.rec.Name); err != nil {
			return nil, 0, err
		}
		if c, ok := stopAgain(ag.lookup(id), n.rec.Name, now, 0); ok && !queued(n, c) {
			cmds = append(cmds, c) // a new agent process may never have had it
		}
	}
	return cmds, strays, nil
}

// listedRunning takes an agent's running list (a registration's or a
// sync's) that names attempt id, which the master places on node, as
// that part's running report: its process runs. A gang's attempt thus
// becomes running once every part is listed or reported running
// (maybeRunning), as a one-node attempt does. Without it, a restarted
// master that restored a starting gang kept it starting for good when
// the running report of a part had been acknowledged before the restart
// and so was never sent again (trial 2026-11-29c C11); a part known
// running also makes the attempt one that ran (reportedRun) when
// another node's agent does not run it. Callers checked heardRunning.
func listedRunning(ctx context.Context, ag *agents, id agent.TaskID, node string) error {
	t := ag.lookup(id)
	p := t.part(node)
	if p.state == partExited || p.exitSaid || t.rec.State != store.TaskStarting && p.state == partRunning {
		return nil
	}
	// Also when the part was taken to run already: a store write that
	// failed left the attempt starting, and the next listing tries again.
	// Touched first, so that a batch undone puts the part back too.
	ag.m.batches.touch(t.job)
	p.state = partRunning
	return ag.maybeRunning(ctx, t)
}

// checkExited checks a registration's exited attempts: each a task ID,
// none also listed running.
func checkExited(reg api.Register) error {
	for i, id := range reg.Exited {
		if err := checkTaskID(id); err != nil {
			return badRequest("exited", "exited[%d]: %v", i, err)
		}
		if slices.Contains(reg.Running, id) {
			return badRequest("exited", "exited[%d]: attempt %s is listed running too", i, id)
		}
	}
	return nil
}
