package lifecycle

// JobTasks is what a job's tasks say of its state (JobRecord.Settles,
// Live) and what the master's views and snapshot read of them: how many
// it has, how many hold slots (TaskState.Active: starting, running,
// preempting or killing), of which how many are being killed (Killing),
// and how many have ended (TaskState.Terminal), of which how many failed
// and how many were killed (by a kill or a time limit); the rest wait
// (Queued).
//
// Both drivers keep it by the same code: Add as a job's tasks are born,
// Move at a change of a task's state, from → to, so that which states
// count as what is decided here only, by the states' own Active and
// Terminal (states.go), the ones the graph reads (graph.go). The master
// moves it at every change of a task's stored state (master/taskcounts.go,
// through setTask); the Cluster, whose records walk the graph with fewer
// states (graph.go), where a change of a record moves its task between
// those counts: a launch (Job.Launch: from waiting, queued or preempted,
// which count alike, to running), a kill (Job.Kill: to killing) and a
// record letting go of its slots (Job.release: to the state it retires
// in). Its other change, running → preempting, stays among the active
// states and counts nothing, and the records of a moved task's draining
// placement (or a lost gang's parts left on nodes up) are no tasks of
// their own.
//
// A kill ends a job's waiting tasks killed in both: the master moves
// each queued one to killed (setTask), the Cluster, which keeps its
// waiting tasks as a count and no records, moves them all at once
// (Moves, in Job.Cancel). The Cluster's waiting count (Job.Waiting) is
// its own.
type JobTasks struct {
	Tasks, Active, Killing, Ended, Failed, Killed int
}

// Queued is how many of the job's tasks wait to start: neither holding
// slots nor ended (queued or preempted; the master's mirror holds none
// preempted, entering a landing with what follows it, setTask). The
// Cluster's ready ones are its own count (Job.Waiting), less those whose
// lost parts still drain (Job.Await).
func (t JobTasks) Queued() int { return t.Tasks - t.Active - t.Ended }

// Add counts n more tasks of the job, born in state s: a submission's,
// queued; those a restarted master reads back, each in its stored state.
func (t *JobTasks) Add(s TaskState, n int) {
	t.Tasks += n
	t.count(s, n)
}

// Move counts one of the job's tasks going from state from to state to.
func (t *JobTasks) Move(from, to TaskState) {
	if from != to {
		t.count(from, -1)
		t.count(to, 1)
	}
}

// Moves counts n of the job's tasks going from state from to state to at
// once, as n Moves would: the Cluster's kill of a job's waiting tasks,
// which it keeps as a count (Job.Cancel).
func (t *JobTasks) Moves(from, to TaskState, n int) {
	if from != to {
		t.count(from, -n)
		t.count(to, n)
	}
}

// count counts n tasks in state s, as what s says of a task: holding
// slots (and being killed), or ended (and failed or killed).
func (t *JobTasks) count(s TaskState, n int) {
	switch {
	case s == TaskKilling:
		t.Active += n
		t.Killing += n
	case s.Active():
		t.Active += n
	case !s.Terminal():
		// queued or preempted: waiting, which the counts leave out
	case s == TaskFailed:
		t.Ended += n
		t.Failed += n
	case s == TaskKilled:
		t.Ended += n
		t.Killed += n
	default:
		t.Ended += n
	}
}
