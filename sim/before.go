package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
)

// Scripted events that wait for a submission: those for a job not
// submitted yet (sim.later, checkLater) and those that come before a
// submission of their instant (Event.Before). A live master takes a
// node event and then a submission in the same second, with a pass
// after each; the simulator otherwise observes an instant's scripted
// events after its submissions. Such an event is kept out of the queue
// and observed, in the input's order, just before the job it names is
// submitted, after the ends of the instant and the submissions before
// that job (and settling first where it says AfterPass, as any
// scripted event).

// holdBefore keeps event i for the submission it comes before.
func (s *sim) holdBefore(i int32) {
	if s.before == nil {
		s.before = map[string][]int32{}
	}
	name := s.in.Events[i].Before
	s.before[name] = append(s.before[name], i)
}

// scriptBefore observes the events that come before job's submission,
// now. An event for another time than the job's submission is an error:
// it would have been observed at neither.
func (s *sim) scriptBefore(job string) error {
	refs, ok := s.before[job]
	if !ok {
		return nil
	}
	delete(s.before, job)
	for _, i := range refs {
		e := s.in.Events[i]
		if e.At != s.now {
			return fmt.Errorf("%s: comes before job %q, submitted at %s, not at the event's time %s",
				where(e), job, Clock(s.now), Clock(e.At))
		}
		if e.AfterPass {
			if err := s.settleBefore(); err != nil {
				return err
			}
		}
		s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventTick})
		s.script(e)
	}
	return nil
}

// checkLater fails a run whose workload is read to its end while scripted
// events still wait for a job it never submitted: a job's name a trace
// does not have can only be found out here, and such an event must not
// be dropped without a word.
func (s *sim) checkLater() error {
	if s.hasNext || len(s.later) == 0 && len(s.before) == 0 {
		return nil
	}
	if err := s.checkBefore(); err != nil {
		return err
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.later)) {
		for _, e := range s.later[name] {
			errs = append(errs, fmt.Errorf("%s: names job %q, which the workload never submits", where(e), name))
		}
	}
	return errors.Join(errs...)
}

// checkBefore fails a run whose workload ended with events still waiting
// for a submission that never came.
func (s *sim) checkBefore() error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.before)) {
		for _, i := range s.before[name] {
			errs = append(errs, fmt.Errorf("%s: comes before job %q, which the workload never submits", where(s.in.Events[i]), name))
		}
	}
	return errors.Join(errs...)
}

// where names event e's place for an error.
func where(e Event) string {
	if e.Where != "" {
		return e.Where
	}
	return "event at " + Clock(e.At)
}
