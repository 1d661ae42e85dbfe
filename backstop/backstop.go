package backstop

import (
	"fmt"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	jobspec "github.com/allot-sched/allot/spec"
)

// Slack is how long after an attempt's deadline the agent waits for the
// master's own kill, which its timer sends at the deadline, before it
// stops the attempt itself: in normal operation the master acts first
// and what it decides does not change.
const Slack = 5 * time.Second

// Limits is the time limits of one node's attempts as its master last
// sent them. The zero value knows none.
type Limits struct {
	due map[agent.TaskID]Due
	// at is when the reply they came with arrived.
	at time.Time
	// heard says that a reply since the last registration listed time
	// limits: that master knows api.Report.StoppedAtLimit.
	heard bool
}

// Due is one attempt's time limit as the agent counts it.
type Due struct {
	// At is when it reaches its limit by the agent's clock: the reply's
	// arrival plus the time it had left.
	At time.Time
	// Limit and Deadline are the job's time limit and the deadline by
	// the master's clock, for the words of the log and the exit report.
	Limit    time.Duration
	Deadline time.Time
}

// Heard records the time limits of a reply that arrived at at;
// registration says that it answered a registration, which starts over.
// It reports whether it changed anything: a reply older than the last
// one heard does not.
func (s *Limits) Heard(at time.Time, ls []api.TimeLimit, registration bool) bool {
	if registration {
		s.heard = false
	} else if !at.After(s.at) {
		return false
	}
	s.at = at
	s.heard = s.heard || len(ls) > 0
	s.due = make(map[agent.TaskID]Due, len(ls))
	for _, l := range ls {
		s.due[l.Task] = Due{At: at.Add(time.Duration(l.LeftMS) * time.Millisecond),
			Limit: time.Duration(max(l.LimitS, 0)) * time.Second, Deadline: l.Deadline}
	}
	return true
}

// Of is the time limit of attempt id, if the master sent one.
func (s *Limits) Of(id agent.TaskID) (Due, bool) {
	d, ok := s.due[id]
	return d, ok
}

// Known says whether the master takes api.Report.StoppedAtLimit: it sent
// time limits since the registration.
func (s *Limits) Known() bool { return s.heard }

// Fire is when the agent stops the attempt itself, slack after its
// deadline.
func (d Due) Fire(slack time.Duration) time.Time { return d.At.Add(slack) }

// Note is the words the agent logs and reports for an attempt it stopped
// at this limit, slack after it.
func (d Due) Note(slack time.Duration) string {
	return fmt.Sprintf("stopped by the agent at its time limit of %s (reached at %s by the master's clock): the master had not stopped it %s later",
		jobspec.Span(d.Limit), d.Deadline.UTC().Format("15:04:05 UTC"), slack)
}

// Mark makes rep, the exit report of an attempt the agent stopped at its
// limit with note, say so: its Error carries the note, and
// StoppedAtLimit is set (ForMaster drops it for an older master). An
// attempt that ended otherwise than killed (by itself, before the kill
// took) is left as it ended.
func Mark(rep *api.Report, note string) {
	if note == "" || rep.Outcome != string(agent.OutcomeKilled) {
		return
	}
	rep.Error = JoinNotes(note, rep.Error)
	rep.StoppedAtLimit = true
}

// ForMaster is reps as the master the agent registered with takes them:
// with StoppedAtLimit only where it knows the field (known: Limits.Known),
// the note staying in Error. reps is not changed.
func ForMaster(reps []api.Report, known bool) []api.Report {
	out := append([]api.Report{}, reps...)
	if known {
		return out
	}
	for i := range out {
		out[i].StoppedAtLimit = false
	}
	return out
}

// JoinNotes joins two notes of a report's Error, either of which may be
// empty.
func JoinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
