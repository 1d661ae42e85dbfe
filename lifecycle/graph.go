package lifecycle

import "fmt"

// The state graph of tasks and jobs: which state may follow which. The
// master's store refuses a transition off it (store.TransitionTask,
// TransitionJob); the Cluster's task records make none off it
// (TestTaskRecordsStayOnGraph watches every change of their State in the
// property tests).
//
// A task may go from any state that is not terminal to any other, but
// not to starting while it holds slots: starting opens an attempt, and an
// active task has one open. The graph is that loose because the master
// moves a task wherever its agent's report or its store's rules take it
// (a preempting task whose kill came first goes to killing, a lost one
// from starting back to queued); what a transition must carry to take an
// edge (a placement, an attempt's end) is the store's to check.
//
// The Cluster's records walk the same graph with fewer states, mapped to
// the master's in this one place:
//
//   - A launch takes its task from queued (a fresh task), or from the
//     state its last record let go of its slots in (preempted, or queued
//     after a lost node), to running: the simulator starts at once, where
//     the master goes through starting (queued → starting → running). Both
//     are edges.
//   - A move or resize (Tasks.Replace) leaves the task's record running,
//     marked Replacing, where the master has it preempting with a reserved
//     placement; the part of its old placement that drains is a record of
//     its own, made preempting (the master has no record for it: it is
//     part of its task's preempting). Its landing (Tasks.Resume) keeps the
//     record running, where the master goes preempting → preempted →
//     starting → running, and retires the draining record preempted (or
//     killed, by a kill or its job's end).
//   - A record that lets go of its slots retires in the state its task is
//     left in (Retire): completed, killed, failed, preempted or queued.
//     The master's preempted → queued, a preempted task waiting again, is
//     the next launch's from in the Cluster: its record stays preempted.

// EdgeError is a transition off the state graph: From may not go to To,
// for the reason Why.
type EdgeError struct {
	Kind     string // "task" or "job"
	From, To string
	Why      string
}

func (e *EdgeError) Error() string {
	return fmt.Sprintf("%s cannot go %q → %q: %s", e.Kind, e.From, e.To, e.Why)
}

// graphState is what the graph reads of a task or job state.
type graphState interface {
	~string
	Valid() bool
	Terminal() bool
}

// offGraph says why from may not go to to under the rules tasks and jobs
// share (both valid, a change, not out of a terminal state); "" when it
// may.
func offGraph[S graphState](kind string, from, to S) string {
	switch {
	case !from.Valid():
		return fmt.Sprintf("%q is not a %s state", from, kind)
	case !to.Valid():
		return fmt.Sprintf("%q is not a %s state", to, kind)
	case from == to:
		return "the transition changes nothing"
	case from.Terminal():
		return fmt.Sprintf("%q is terminal", from)
	}
	return ""
}

// TaskEdge returns nil when a task may go from state from to state to,
// else an *EdgeError naming both and why not.
func TaskEdge(from, to TaskState) error {
	why := offGraph("task", from, to)
	if why == "" && to == TaskStarting && from.Active() {
		why = "it already has an open attempt"
	}
	if why == "" {
		return nil
	}
	return &EdgeError{Kind: "task", From: string(from), To: string(to), Why: why}
}

// JobEdge returns nil when a job may go from state from to state to: any
// move between distinct states but out of a terminal one. Otherwise it
// returns an *EdgeError naming both and why not.
func JobEdge(from, to JobState) error {
	if why := offGraph("job", from, to); why != "" {
		return &EdgeError{Kind: "job", From: string(from), To: string(to), Why: why}
	}
	return nil
}
