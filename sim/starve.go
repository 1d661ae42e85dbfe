package sim

import "github.com/allot-sched/allot/lifecycle"

// Starvation counts the jobs of a run that waited too long to start
// (Options.StarveAfter). A job's wait is start − submit, its first start
// as in Metrics.Wait; a job that never started waited until it ended
// (killed while queued) or, still waiting, until the run stopped, and
// counts with that wait: the longest waiters of a run cut short are
// often those that never started.
type Starvation struct {
	// After is the threshold in seconds: a job that waited longer, not
	// as long, starved.
	After int64 `json:"after"`
	// Jobs counts the starved jobs; NeverStarted those among them that
	// never started.
	Jobs         int `json:"jobs"`
	NeverStarted int `json:"never_started"`
	// Longest is the job that waited longest, started or not (the
	// earliest submitted of equals); nil when no job was submitted.
	Longest *LongestWait `json:"longest"`
}

// LongestWait is the job that waited longest and how long, in seconds.
type LongestWait struct {
	Job     string `json:"job"`
	Wait    int64  `json:"wait"`
	Started bool   `json:"started"`
}

// starveCounter accumulates Starvation as jobs end and, at the end of the
// run, as the unfinished ones are counted; seq keeps the tie-break to the
// earliest submission whatever order jobs end in.
type starveCounter struct {
	st  Starvation
	seq int64
}

func newStarveCounter(after int64) starveCounter {
	return starveCounter{st: Starvation{After: after}}
}

// add counts one job: name and seq (submission order), its wait so far,
// and whether it started.
func (c *starveCounter) add(name string, seq, wait int64, started bool) {
	if wait > c.st.After {
		c.st.Jobs++
		if !started {
			c.st.NeverStarted++
		}
	}
	if l := c.st.Longest; l == nil || wait > l.Wait || (wait == l.Wait && seq < c.seq) {
		c.st.Longest = &LongestWait{Job: name, Wait: wait, Started: started}
		c.seq = seq
	}
}

// waited is job j's wait for starvation (lj its lifecycle record) when
// the clock reads now: to its first start, else to its end, else to now.
func waited(j *job, lj *lifecycle.Job, now int64) (wait int64, started bool) {
	switch {
	case lj.Start >= 0:
		return lj.Start - j.spec.Submit, true
	case lj.State.Terminal() && lj.End >= 0:
		return lj.End - j.spec.Submit, false
	}
	return now - j.spec.Submit, false
}
