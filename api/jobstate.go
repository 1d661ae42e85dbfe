package api

// JobStateKilling is the state a client shows for a job that is Ending,
// and the state filter of GET /jobs that selects those jobs; no job is
// stored in it (Job.State stays killed, or running).
const JobStateKilling = "killing"

// JobStateResizing is the state a client shows for a running job while
// a task of it is being resized in place (Job.Resizing), and for that
// task (Task.Resize); nothing is stored in it (the job stays running, the
// task preempting) and no filter takes it.
const JobStateResizing = "resizing"

// ShownState is the state to show a user: killing while the job is
// Ending, resizing while a task of it is being resized, else its State.
func (j Job) ShownState() string {
	switch {
	case j.Ending:
		return JobStateKilling
	case j.Resizing != nil && j.State == "running":
		return JobStateResizing
	}
	return j.State
}
