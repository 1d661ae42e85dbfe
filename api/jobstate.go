package api

import "time"

// JobStateKilling is the state a client shows for a job that is Ending,
// and the state filter of GET /jobs that selects those jobs; no job is
// stored in it (Job.State stays killed, or running).
const JobStateKilling = "killing"

// JobStateResizing is the state a client shows for a running job while
// a task of it is being resized in place (Job.Resizing), and for that
// task (Task.Resize); nothing is stored in it (the job stays running, the
// task preempting) and no filter takes it.
const JobStateResizing = "resizing"

// JobStateMoving is the state a client shows for a running job while a
// task of it is being moved to another placement (Job.Moving), and for
// that task (Task.Move): a consolidation making room for another job,
// or a re-placement. Nothing is stored in it (the job stays running, the
// task preempting) and, as for resizing, no filter takes it.
const JobStateMoving = "moving"

// JobStatePreempting is the state a client shows for a running job while
// a task of it is being preempted (Job.Preempting): asked to checkpoint
// and stop, the task holds its GPUs until it stops or its grace ends,
// when the master has it killed, and then waits again, or ends, as its
// exit actions say. The task's own state is preempting; nothing of the
// job is stored in it (it stays running) and, as for resizing, no
// filter takes it.
const JobStatePreempting = "preempting"

// JobStateHeld is the state a client shows for a queued job that is
// held (Job.Held): no pass considers it until it is released. It stays
// queued in the store, and no filter takes it.
const JobStateHeld = "held"

// ShownState is the state to show a user: held while a queued job is
// held, killing while the job is Ending, resizing while a task of it is being resized, moving while one
// is being moved, preempting while one is being preempted, else its
// State.
func (j Job) ShownState() string {
	switch {
	case j.Ending:
		return JobStateKilling
	case j.Held != nil && j.State == "queued":
		return JobStateHeld
	case j.State != "running":
		return j.State
	case j.Resizing != nil:
		return JobStateResizing
	case j.Moving != nil:
		return JobStateMoving
	case j.Preempting != nil:
		return JobStatePreempting
	}
	return j.State
}

// ShownState is the state to show of a task: resizing while it
// checkpoints to be resized (Resize), moving while it checkpoints to be
// moved (Move), else its State.
func (t Task) ShownState() string {
	switch {
	case t.State != "preempting":
		return t.State
	case t.Resize != nil:
		return JobStateResizing
	case t.Move != nil:
		return JobStateMoving
	}
	return t.State
}

// Resizing is a task of a running job being resized in place
// (Job.Resizing): it checkpoints, holding From slots, since Since, and
// then runs on at once with To. ForJob is the job it shrinks for (0 for
// growth) and Why the rule that lets that job take its slots, as the
// resize's reason says it ("quota reclaim: project nlp is below its
// quota, project vision over it"). Tasks counts the job's tasks being
// resized; Task, From and To are the first's.
type Resizing struct {
	Task   int       `json:"task"`
	Tasks  int       `json:"tasks"`
	From   int       `json:"from"`
	To     int       `json:"to"`
	ForJob int64     `json:"for_job,omitempty"`
	Why    string    `json:"why,omitempty"`
	Since  time.Time `json:"since"`
}

// Moving is a task of a running job being moved to another placement
// (Job.Moving): it checkpoints on the nodes From since Since, and then
// restarts at once on To, the nodes of the placement reserved for it,
// with as many slots. ForJob is the job the move makes room for (0 for
// none). Tasks counts the job's tasks being moved; Task, From, To and
// ForJob are the first's.
type Moving struct {
	Task   int       `json:"task"`
	Tasks  int       `json:"tasks"`
	From   []string  `json:"from"`
	To     []string  `json:"to"`
	ForJob int64     `json:"for_job,omitempty"`
	Since  time.Time `json:"since"`
}

// NodeChange is a task's move (Task.Move): the nodes of the attempt that
// checkpoints and of the placement it restarts on.
type NodeChange struct {
	From []string `json:"from"`
	To   []string `json:"to"`
}

// Preempting is a task of a running job being preempted (Job.Preempting):
// asked to checkpoint and stop at Since, for the reason Why ("preempted
// for job 17 (...)"), it holds its GPUs until it stops, and at Deadline,
// Since plus its pool's grace, the master's kill comes for what has not
// stopped: its GPUs are free by then (the end confirmed by its agent
// aside). Tasks counts the job's tasks being preempted; Task, Since,
// Deadline and Why are the first's.
type Preempting struct {
	Task     int       `json:"task"`
	Tasks    int       `json:"tasks"`
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline"`
	Why      string    `json:"why,omitempty"`
}
