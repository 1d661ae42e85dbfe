package master

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// The words of explain's messages that name jobs, nodes and states.

// drainedCounterfactual says that the job waits for drained nodes of its
// pool (sched.Snapshot.DrainedNodes): they take no new work, so no start
// is promised on them, and the job is not one that can never run.
func drainedCounterfactual(names []string) *api.Counterfactual {
	return &api.Counterfactual{Message: "It cannot start on the nodes up now: the pool's " +
		sched.DrainedPhrase(names) + " drained; it waits for a resume (allot node resume) or another node."}
}

// fitsNowMessage is the counterfactual of a job whose need slots are free
// now on nodes: it would start at once but for the jobs ranked before it
// and the rules. rule, when not "", names the rule that keeps it off the
// idle slots (cfFacts.idleRule).
func fitsNowMessage(need int, nodes []string, rule string) string {
	// need, not the node's free count: more may be free.
	free := fmt.Sprintf("The %s it needs %s free now on %s", slotWord(need), plural.Be(need), strings.Join(nodes, ", "))
	if rule != "" {
		return free + ", but " + rule
	}
	return free + ": it would start at once if nothing ranked before it and no rule held it back."
}

// slotsOf is the slots of nodes together.
func slotsOf(nodes []*nodeUse) int {
	n := 0
	for _, u := range nodes {
		n += u.slots
	}
	return n
}

// mustEndPhrase says what must come of the running jobs refs, in the
// present tense that follows "once", each by its JobRef.Preempt: those
// that must end ("job 6 ends"), those the pool's policy could preempt
// for the job instead ("jobs 2 and 3 end or are preempted"), and those
// the core already asked to stop, whose checkpoint it waits for ("job 4
// is preempted and checkpoints"), or, resized, for what they give back
// ("job 5 shrinks to 1 slot and checkpoints"): "job 6 ends and job 2
// ends or is preempted".
func mustEndPhrase(refs []api.JobRef) string {
	var ending, possible, stopped, resized []api.JobRef
	for _, r := range refs {
		switch {
		case r.Preempt == api.PreemptUnderWay && r.Resize != nil:
			resized = append(resized, r)
		case r.Preempt == api.PreemptUnderWay:
			stopped = append(stopped, r)
		case r.Preempt == api.PreemptPossible:
			possible = append(possible, r)
		default:
			ending = append(ending, r)
		}
	}
	var parts []string
	if len(ending) > 0 {
		parts = append(parts, jobList(ending)+" "+endVerb(len(ending)))
	}
	if len(possible) > 0 {
		parts = append(parts, jobList(possible)+" "+endVerb(len(possible))+" or "+plural.Be(len(possible))+" preempted")
	}
	if len(stopped) > 0 {
		// Preempted already: what it waits for is the checkpoint.
		parts = append(parts, jobList(stopped)+" "+plural.Be(len(stopped))+" preempted and "+checkpointVerb(len(stopped)))
	}
	if len(resized) > 0 {
		// Resized: it waits for the checkpoint of what they give back.
		parts = append(parts, resizedPhrase(resized))
	}
	if n := len(parts); n > 2 {
		return strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	return strings.Join(parts, " and ")
}

// checkpointVerb is "checkpoints" for one job, "checkpoint" for more.
func checkpointVerb(n int) string {
	if n == 1 {
		return "checkpoints"
	}
	return "checkpoint"
}

// endVerb is "ends" for one job, "end" for more.
func endVerb(n int) string {
	if n == 1 {
		return "ends"
	}
	return "end"
}

// jobList names jobs by number: "job 3", "jobs 3, 4 and 5".
func jobList(refs []api.JobRef) string {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = strconv.FormatInt(r.ID, 10)
	}
	list := ids[0]
	switch n := len(ids); {
	case n > maxNamed:
		// The structured fields list them all; a sentence of hundreds of
		// numbers is read by no one.
		list = strings.Join(ids[:maxNamed], ", ") + fmt.Sprintf(" and %d more", n-maxNamed)
	case n > 1:
		list = strings.Join(ids[:n-1], ", ") + " and " + ids[n-1]
	}
	return plural.Noun(len(ids), "job") + " " + list
}

// maxNamed is how many jobs a sentence names before it counts the rest.
const maxNamed = 8

// stateSentence says a job's end state as a sentence start: "It failed",
// "It was killed", "It completed"; another state as "It is <state>".
func stateSentence(state string) string {
	switch state {
	case "failed":
		return "It failed"
	case "killed":
		return "It was killed"
	case "completed":
		return "It completed"
	}
	return "It is " + state
}

// quotaWithin says why work that may only run within quota (interactive,
// or not preemptible) does not fit its project's quota, which its
// project's such work holds fixed of; where the pool has idle slots it
// could borrow if preemptible (idle, sched.Snapshot.BorrowIdle), it says
// how.
func quotaWithin(p *sched.Project, fixed, need, idle int) string {
	m := fmt.Sprintf("Its project %s holds %d of its quota of %d in work that may only run within quota; this job needs %d more, %d over quota, and may only run within quota.",
		p.Name, fixed, p.Quota, need, fixed+need-p.Quota)
	if idle > 0 {
		m += fmt.Sprintf(" Submitted preemptible (resources: preemptible: true), it could borrow the pool's %s idle now past its quota, and be preempted when they are reclaimed.",
			slotWord(idle))
	}
	return m
}

// noNodeUpMessage is the pending message of a job whose pool has no node
// up at all: no node "can hold its task" would send its user to resize a
// job that fits the pool's nodes once they are back. gone names the
// pool's nodes that left or are lost (goneNodes), "" for none.
func noNodeUpMessage(pool, gone string) string {
	m := fmt.Sprintf("pool %s has no node up", pool)
	if gone != "" {
		m += ": " + gone
	}
	return m + "; it waits for a node to join or come back"
}

// goneNodes names the nodes of pool that are not up, each with its state
// ("n1 (left), n2 (lost)"), sorted, up to three and a count of the rest.
// Callers hold mu.
func (m *Master) goneNodes(pool string) string {
	var names []string
	for name, n := range m.nodes {
		if n.pool == pool && !n.up() {
			names = append(names, name+" ("+string(n.rec.State)+")")
		}
	}
	slices.Sort(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}
