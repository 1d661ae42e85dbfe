package master

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// A reserved job's two answers, made to agree. The last pass reserved it
// a start (the core's backfill: the earliest time its task fits, as the
// running jobs' time limits free slots), and the counterfactual names the
// fewest running jobs whose end would let it start now: a different
// question. Printed one after the other they contradicted each other
// (trial n F16: "reserved to start in 1h 51m. It could start on n2 once
// job 4 ends", job 4's limit 18 minutes away; or a reservation on n2 at
// 12:38 beside "could start on n3 once job 13 ends", at 13:58). Where
// they differ the answer now leads with the plan, where and when and
// whose limits make the room, and says the counterfactual is a sooner
// way: "Planned: on n2 at 12:38 (its reservation), when jobs 18 and 17
// reach their time limits. It may start sooner: it could start on n3
// once job 13 ends or is preempted."

// reservation is where and when the last pass reserved a job's start,
// and the running jobs whose limits free the room there.
type reservation struct {
	at    time.Time
	nodes []string
	ends  []api.JobRef
}

// reservedAt is job id's reservation in the last pass, nil where it has
// none with a time. Callers hold mu.
func reservedAt(m *Master, id int64) *reservation {
	j := m.jobs[id]
	if j == nil || j.pending == nil {
		return nil
	}
	pe := j.pending.p
	if pe.Reason != sched.ReasonReserved || pe.At <= 0 || pe.At == sched.Never {
		return nil
	}
	ji := m.planner.roster.index(j)
	if ji < 0 || ji >= len(m.planner.snap.Jobs) {
		return nil
	}
	f := liveFacts(m, ji)
	need := pe.Need
	if need <= 0 {
		return nil
	}
	nodes, allocs := reservedNodes(f.s, f.poolNodes(&f.s.Jobs[ji]), need, pe.At)
	if len(nodes) == 0 {
		return nil
	}
	r := &reservation{at: time.Unix(pe.At, 0).UTC()}
	for _, n := range nodes {
		r.nodes = append(r.nodes, n.name)
	}
	r.ends, _ = f.heldRefs(allocs)
	return r
}

// reservedNodes finds where a task of need slots fits by at, counting the
// slots the allocations ending by then free: one node when one holds it
// (the one whose room comes last, at at itself if one does: the core
// reserved the earliest start, so that node is most likely its choice),
// else the nodes with the most room then. It returns them and the
// allocations there that must end for the room, soonest first.
func reservedNodes(s *sched.Snapshot, nodes []*nodeUse, need int, at int64) ([]*nodeUse, []int) {
	roomBy := func(n *nodeUse) (int, []int) {
		free := n.free
		var ends []int
		for _, ai := range n.allocs { // soonest to end first
			if free >= need || endOf(s, ai) > at {
				break
			}
			free += allocSlotsOn(&s.Allocs[ai], n, s)
			ends = append(ends, ai)
		}
		return free, ends
	}
	var best *nodeUse
	var bestEnds []int
	for _, n := range nodes {
		if free, ends := roomBy(n); free >= need && (best == nil || lastEnd(s, ends) > lastEnd(s, bestEnds)) {
			best, bestEnds = n, ends
		}
	}
	if best != nil {
		return []*nodeUse{best}, bestEnds
	}
	sorted := slices.Clone(nodes)
	room := map[*nodeUse]int{}
	for _, n := range sorted {
		room[n], _ = roomBy(n)
	}
	slices.SortStableFunc(sorted, func(a, b *nodeUse) int { return room[b] - room[a] })
	var chosen []*nodeUse
	var ends []int
	total := 0
	for _, n := range sorted {
		if total >= need {
			break
		}
		free, e := roomBy(n)
		chosen, ends, total = append(chosen, n), append(ends, e...), total+free
	}
	if total < need {
		return nil, nil
	}
	return chosen, ends
}

// agree leads cf with the reservation where cf says something else: it
// starts sooner (NotBefore before the reservation) or elsewhere (other
// nodes). cf is kept where they agree, or say nothing to compare.
func (r *reservation) agree(cf *api.Counterfactual) *api.Counterfactual {
	if r == nil || cf == nil || len(cf.MustEnd) == 0 || cf.Message == "" {
		return cf
	}
	sooner := cf.NotBefore == nil || cf.NotBefore.Before(r.at.Add(-time.Minute))
	elsewhere := len(cf.Nodes) > 0 && !slices.Equal(sortedNames(cf.Nodes), sortedNames(r.nodes))
	if !sooner && !elsewhere {
		return cf
	}
	out := *cf
	how := " It may start sooner: "
	if !sooner {
		how = " It may start sooner if running jobs end before their time limits: "
	}
	out.Message = r.planned() + how + lowerFirst(cf.Message)
	return &out
}

// planned says the reservation: "Planned: on n2 at 2026-11-28 12:38
// UTC (its reservation), when jobs 18 and 17 reach their time limits."
func (r *reservation) planned() string {
	when := ""
	if len(r.ends) > 0 {
		verb := "reaches its time limit"
		if len(r.ends) > 1 {
			verb = "reach their time limits"
		}
		when = fmt.Sprintf(", when %s %s", jobList(r.ends), verb)
	}
	return fmt.Sprintf("Planned: on %s at %s (its reservation)%s.",
		strings.Join(r.nodes, ", "), r.at.Format("2006-01-02 15:04 MST"), when)
}

func sortedNames(n []string) []string {
	out := slices.Clone(n)
	slices.Sort(out)
	return out
}

// lowerFirst lowers a sentence's first letter, to follow a colon.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
