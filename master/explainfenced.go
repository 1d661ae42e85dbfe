package master

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/store"
)

// maxStartsRead bounds the master's own audit entries (its starts and
// store outages) that fencedMasterBack reads, the newest first.
const maxStartsRead = 200

// An attempt that its agent's fence (or its task shim's) stopped while
// the master was unreachable ends preempted, as the agent reports it, so
// that the task resumes from its checkpoint. But no pass asked for it:
// explain lists it apart, dated by the stop, and does not count it as a
// preemption (trial 2026-11-29a A8: a master restart read "preempted
// twice", dated by the master's return and worded as a node's fault).

// fencedEnd reports whether attempt a was stopped by a fence rather than
// preempted by a pass: it ended preempted, by its agent's words a
// fence's stop, and no pass asked it to checkpoint (decided: a
// preempting event of its own).
func fencedEnd(a store.Attempt, decided bool) bool {
	return a.EndState == store.AttemptPreempted && !decided && agent.FencedEnd(a.Reason)
}

// fencedView is explain's entry for a fenced attempt: when the master
// heard of it (At) and when it stopped (ExitedAt), the agent's account,
// and the attempt that resumed its task, if one has begun.
func fencedView(a store.Attempt, atts []store.Attempt) api.Preemption {
	p := api.Preemption{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(), Why: strings.TrimPrefix(a.Reason, "preempted: ")}
	if !a.ExitedAt.IsZero() {
		x := a.ExitedAt.UTC()
		p.ExitedAt = &x
	}
	for _, n := range atts {
		if n.JobID == a.JobID && n.Index == a.Index && n.Number == a.Number+1 {
			p.Why += "; attempt " + strconv.Itoa(n.Number) + " resumed from its checkpoint"
			break
		}
	}
	return p
}

// fencedSentence counts a job's fenced attempts by task, as
// preemptedSentence counts preemptions: "Its task 0 was stopped twice by
// its agent's fence while the master was unreachable, and requeued."
func fencedSentence(fenced []api.Preemption) string {
	const why = "while the master was unreachable (no preemption: the task was requeued to resume from its checkpoint)"
	return stopsSentence(fenced, stopWords{
		one:  "Its task %d was stopped %s by its agent's fence " + why + ".",
		each: "%d of its tasks were stopped by their agents' fence, once each, " + why + ".",
		some: "%d of its tasks were stopped by their agents' fence, %s in all, " + why + ".",
	})
}

// stopWords are the three forms of a sentence that counts a job's
// stopped attempts by task: one task stopped (its number, how many
// times), each of several tasks once (how many), and some tasks more
// than once (how many tasks, how many times in all).
type stopWords struct{ one, each, some string }

// stopsSentence counts stops by task in w's words; "" for none.
func stopsSentence(stops []api.Preemption, w stopWords) string {
	tasks := map[int]bool{}
	for _, a := range stops {
		tasks[a.Task] = true
	}
	switch n := len(stops); {
	case n == 0:
		return ""
	case len(tasks) == 1:
		return fmt.Sprintf(w.one, stops[0].Task, plural.Times(n))
	case len(tasks) == n:
		return fmt.Sprintf(w.each, n)
	default:
		return fmt.Sprintf(w.some, len(tasks), plural.Times(n))
	}
}

// fencedMasterBack dates the master's return for each fenced attempt:
// the first "master start" of the audit log after its stop (ExitedAt)
// and no later than its report (At). The report comes once the agent has
// registered again, seconds after the start: "master back at" the
// report's time read as the return (trial 2026-11-29b B2). An audit the
// store cannot read leaves them undated: the CLI then says "reported
// at".
func fencedMasterBack(ctx context.Context, m *Master, fenced []api.Preemption) {
	if len(fenced) == 0 {
		return
	}
	es, err := m.st.Audit(ctx, store.AuditFilter{Actor: "master", Newest: true, Limit: maxStartsRead})
	if err != nil {
		m.log.Warn("explain: the master's starts not read from the audit log", "err", err)
		return
	}
	for i := range fenced {
		p := &fenced[i]
		if p.ExitedAt == nil {
			continue
		}
		for _, e := range es { // newest first: the last one that fits is the earliest
			if e.Action == "master start" && e.At.After(*p.ExitedAt) && !e.At.After(p.At) {
				at := e.At.UTC()
				p.MasterBack = &at
			}
		}
	}
}
