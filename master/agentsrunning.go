package master

import (
	"context"
	"slices"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// queued reports whether c is in node n's queue already (a restarted
// master queues the stops of the tasks it finds being stopped).
func queued(n *mnode, c api.Command) bool {
	return slices.ContainsFunc(n.commands, func(q api.Command) bool { return q.Type == c.Type && q.Task == c.Task })
}

// registeredRunning reconciles the attempts a registering agent runs
// with the master's: the master's attempts on the node that the agent
// does not list wait for their reports (n.reconcile); a stray one the
// agent runs (one the master ended, or never knew) is asked to
// checkpoint or killed (stray.go), strays counting those; one being
// stopped gets its stop again (stopAgain). It returns the commands for
// the reply.
func registeredRunning(ctx context.Context, ag *agents, n *mnode, running []agent.TaskID, now time.Time) (cmds []api.Command, strays int, err error) {
	runs := map[agent.TaskID]bool{}
	for _, id := range running {
		runs[id] = true
	}
	ag.strays.releaseStrays(n, runs)
	n.reconcile = map[agent.TaskID]bool{}
	for _, t := range ag.m.tasksOn(n.rec.Name) {
		p := t.part(n.rec.Name)
		switch {
		case runs[t.id()] || p.state == partExited:
		case !p.delivered:
			// Its start command is still queued and goes out with this reply.
		default:
			n.reconcile[t.id()] = true
		}
	}
	for _, id := range running {
		if !ag.heardRunning(id, n.rec.Name, now) {
			c, err := ag.strays.stray(ctx, n, id, now)
			if err != nil {
				return nil, 0, err
			}
			cmds = append(cmds, c)
			strays++
		} else if c, ok := stopAgain(ag.lookup(id), n.rec.Name, now, 0); ok && !queued(n, c) {
			cmds = append(cmds, c) // a new agent process may never have had it
		}
	}
	return cmds, strays, nil
}
