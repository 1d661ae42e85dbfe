package master

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// maxEmptyPoolJobs bounds the jobs a warning of a reload names, one pool's.
const maxEmptyPoolJobs = 5

// emptyPoolWarnings says, after a reload swapped cfg in, of every pool
// that has live jobs but no node any more (none up or lost: a node that
// left is not counted, as it may never return) which jobs are in it: a
// running job's tasks go on where they run, on nodes that may now be in
// another pool, and its queued ones wait until a node joins the pool
// again. A reload that moved the last node out of a pool is taken, but
// the admin learns of it from the reply and the log, not from allot
// pools' "SLOTS 1/0" later. Callers hold mu.
func (rl reloader) emptyPoolWarnings() []string {
	m := rl.m
	nodes := map[string]int{}
	for _, n := range m.nodes {
		if n.rec.State != store.NodeLeft {
			nodes[n.pool]++
		}
	}
	live := map[string][]*mjob{}
	for _, j := range m.jobs {
		if j.live() && nodes[j.rec.Pool] == 0 {
			live[j.rec.Pool] = append(live[j.rec.Pool], j)
		}
	}
	var out []string
	for _, pool := range slices.Sorted(maps.Keys(live)) {
		js := live[pool]
		slices.SortFunc(js, func(a, b *mjob) int { return int(a.rec.ID - b.rec.ID) })
		named := make([]string, 0, maxEmptyPoolJobs+1)
		for _, j := range js[:min(len(js), maxEmptyPoolJobs)] {
			named = append(named, j.idString()+" ("+rl.whereJob(j)+")")
		}
		if len(js) > maxEmptyPoolJobs {
			named = append(named, fmt.Sprintf("%d more", len(js)-maxEmptyPoolJobs))
		}
		out = append(out, fmt.Sprintf("pool %s has no node now; %s %s %s in it", pool, plural.Noun(len(js), "job"),
			andList(named), plural.Be(len(js))))
	}
	return out
}

// whereJob says how a live job of a pool without nodes stands: running
// on which nodes, and their pools now where not its own, or queued.
func (rl reloader) whereJob(j *mjob) string {
	m := rl.m
	var on []string
	for _, t := range j.tasks {
		if t.att == nil {
			continue
		}
		for _, p := range t.att.parts {
			where := p.node
			if n := m.nodes[p.node]; n != nil && n.pool != j.rec.Pool {
				where += ", now in " + n.pool
			}
			if !slices.Contains(on, where) {
				on = append(on, where)
			}
		}
	}
	if len(on) == 0 {
		return string(j.rec.State)
	}
	slices.Sort(on)
	return "running on " + strings.Join(on, "; ")
}
