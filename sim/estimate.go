package sim

// recordEstimates gives each job of fresh, those submitted at this
// instant, the start the live master would show once the instant's
// passes are done: its start, if it started, else sched.Forecast's
// estimate, the same computation the master makes for every waiting job.
func (s *world) recordEstimates(fresh []int32) {
	var est map[int]int64
	for _, ji := range fresh {
		j, lj := &s.jobs[ji], &s.c.Jobs[ji]
		switch {
		case lj.Start >= 0:
			j.estimate = lj.Start
		case lj.State.Terminal():
		default:
			if est == nil {
				// The whole queue, not the FIFO window.
				est = s.c.Forecast(s.now)
			}
			if at, ok := est[s.c.Roster.Index(ji)]; ok {
				j.estimate = at
			}
		}
	}
}
