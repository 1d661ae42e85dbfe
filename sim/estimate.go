package sim

import "github.com/allot-sched/allot/sched"

// nextJobSlot is the index newJob will give the next job.
func (s *sim) nextJobSlot() int32 {
	if n := len(s.freeJobs); n > 0 {
		return s.freeJobs[n-1]
	}
	return int32(len(s.jobs))
}

// recordEstimates gives each job submitted at this instant the start the
// live master would show once the instant's passes are done: its start,
// if it started, else sched.Forecast's estimate, the same computation the
// master makes for every waiting job.
func (s *sim) recordEstimates() {
	var est map[int]int64
	for _, ji := range s.fresh {
		j := &s.jobs[ji]
		switch {
		case j.Start >= 0:
			j.estimate = j.Start
		case !j.Alive:
		default:
			if est == nil {
				// The whole queue, not the FIFO window (prefix.go).
				prefix := s.prefix
				s.prefix = 0
				s.buildSnapshot()
				s.prefix = prefix
				est = sched.Forecast(&s.snap)
			}
			if at, ok := est[s.roster.Index(ji)]; ok {
				j.estimate = at
			}
		}
	}
}
