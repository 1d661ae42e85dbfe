package sim

// Ends after a pass. A live master runs a pass after each event; an
// attempt that ended after a pass of its second had decided something
// (a start at 34.167 on n2, as n1 was still held by a task that exited
// at 34.856, trial 2026-11-29j J1) freed its slots after that pass. The
// simulator takes an instant's ends before its submissions, so such an
// end, scripted (JobSpec.EndsAfterPass), is held back (sim.later) and
// applied after the instant's first settling: the one before the first
// submission or scripted event marked AfterPass, or else the one after
// its submissions and scripted events (step); the instant is settled
// again after it.

// holdLater says whether event e, just popped, is an end that comes
// after its instant's settling, and holds it back (s.later) if so.
func holdLater(s *sim, e event) bool {
	switch e.kind {
	case evFail, evStop, evEnd, evCheckpoint, evKillEnd:
	default:
		return false
	}
	if !s.c.Tasks.Current(e.ref, e.ver) {
		return false
	}
	t := s.c.Tasks.At(e.ref)
	if !s.jobs[t.Job].spec.EndsAfterPass[[2]int{int(t.ID), int(t.Retries) + 1}] {
		return false
	}
	s.later = append(s.later, e)
	return true
}

// handleLater applies the ends held back (s.later), in the order they
// came due, and says whether there were any.
func handleLater(s *sim) bool {
	if len(s.later) == 0 {
		return false
	}
	for _, e := range s.later {
		s.handle(e)
	}
	s.later = s.later[:0]
	return true
}
