package scenario

import (
	"fmt"
	"time"

	"github.com/allot-sched/allot/spec"
)

// Warnings are what is valid in the file but likely not meant, one line
// each (FILE:LINE: PATH: MESSAGE), for the command that reads it to tell
// on stderr; nil for none. The simulator runs the file as it is.
//
// A job event (kill, set_priority, ...) whose time comes before its
// job's submission is applied at the submission (sim's heldEvents): a
// kill "at 1h" of a job submitted at 2h is more likely a slip of units
// than a plan (trial 2026-11-29g G4). Jobs from a trace are not known
// here. A decay whose half_life is shorter than its period decays usage
// only at each period's end (spec.Decay's Warning), as the master's
// configuration check says too.
func (s *Scenario) Warnings() []string {
	submits := make(map[string]int64, len(s.Jobs))
	for _, j := range s.Jobs {
		submits[j.Name] = j.Arrival()
	}
	var out []string
	if w := s.Decay.WarningOf(s.DecayPeriodSet); w != "" {
		out = append(out, fmt.Sprintf("%s:%d: %s", s.Name, s.Decay.Line, w))
	}
	for i, e := range s.Events {
		at, ok := submits[e.Job]
		if e.Job == "" || !ok || e.At >= at {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d: events[%d]: %s at %s comes before job %q is submitted (at %s); the simulator applies it at the submission",
			s.Name, e.Line, i, e.Kind, span(e.At), e.Job, span(at)))
	}
	return out
}

// span writes seconds as a file writes a duration (1h30m, 45s).
func span(sec int64) string { return spec.Span(time.Duration(sec) * time.Second) }
