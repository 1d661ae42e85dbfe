package api

// JobStateKilling is the state a client shows for a job that is Ending,
// and the state filter of GET /jobs that selects those jobs; no job is
// stored in it (Job.State stays killed, or running).
const JobStateKilling = "killing"

// ShownState is the state to show a user: killing while the job is
// Ending, else its State.
func (j Job) ShownState() string {
	if j.Ending {
		return JobStateKilling
	}
	return j.State
}
