package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
)

// Scripted events that wait for a submission: those for a job not
// submitted yet (heldEvents.later, check) and those that come before a
// submission of their instant (Event.Before). A live master takes a
// node event and then a submission in the same second, with a pass
// after each; the simulator otherwise observes an instant's scripted
// events after its submissions. Such an event is kept out of the queue
// and observed, in the input's order, just before the job it names is
// submitted, after the ends of the instant and the submissions before
// that job (and settling first where it says AfterPass, as any
// scripted event).

// heldEvents are the scripted events that wait for a submission, kept
// out of the queue: a part of the sim that owns them (held), not
// embedded, so that its methods are not the sim's.
type heldEvents struct {
	later map[string][]Event // scripted changes for jobs not yet submitted
	// before maps job names to the scripted events that come just
	// before their submission (Event.Before), by index in Input.Events.
	before map[string][]int32
}

// holdBefore keeps event i, which comes before job name's submission.
func (h *heldEvents) holdBefore(name string, i int32) {
	if h.before == nil {
		h.before = map[string][]int32{}
	}
	h.before[name] = append(h.before[name], i)
}

// scriptBefore observes the events that come before job's submission,
// now. An event for another time than the job's submission is an error:
// it would have been observed at neither.
func (s *sim) scriptBefore(job string) error {
	refs, ok := s.held.before[job]
	if !ok {
		return nil
	}
	delete(s.held.before, job)
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

// check fails a run whose workload was read to its end (of whose input
// events are the scripted events) while scripted events still wait for a
// job it never submitted: a job's name a trace does not have can only be
// found out here, and such an event must not be dropped without a word.
func (h *heldEvents) check(events []Event) error {
	if len(h.later) == 0 && len(h.before) == 0 {
		return nil
	}
	if err := h.checkBefore(events); err != nil {
		return err
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(h.later)) {
		for _, e := range h.later[name] {
			errs = append(errs, fmt.Errorf("%s: names job %q, which the workload never submits", where(e), name))
		}
	}
	return errors.Join(errs...)
}

// checkBefore fails a run whose workload ended with events still waiting
// for a submission that never came.
func (h *heldEvents) checkBefore(events []Event) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(h.before)) {
		for _, i := range h.before[name] {
			errs = append(errs, fmt.Errorf("%s: comes before job %q, which the workload never submits", where(events[i]), name))
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
