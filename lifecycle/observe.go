package lifecycle

// EventKind names an outcome of an earlier effect that a driver reports
// back (Observe): the simulator from its timers, the master (later) from
// its agents.
type EventKind uint8

const (
	// EventEnded: a task's attempt ended as Task.Due promised, its work
	// done or (Task.Limited) its time limit reached.
	EventEnded EventKind = iota + 1
	// EventLanded: the checkpoint of a preempted task, or of the draining
	// part of a moved or resized one, has landed; its slots are free.
	EventLanded
)

// Event is an outcome reported for version Ver of task record Task: the
// version the task had when the promise was made (Effect's task after
// Step applied it, or the draining record of a re-placement).
type Event struct {
	Kind EventKind
	Task int32
	Ver  uint32
}

// Outcome is what Observe did with an event.
type Outcome struct {
	// Applied is false for a stale event: the task was re-planned
	// (preempted, moved, resized, killed) or retired since the promise,
	// so the outcome no longer applies and nothing changed.
	Applied bool
	// Job is the task's job; Slots the slots the task let go of.
	Job   int32
	Slots int
	// TimedOut: an ended attempt reached its time limit (EventEnded).
	// Drained: the landed checkpoint was a moved task's old placement,
	// whose task runs on (EventLanded); else the task was preempted and
	// now waits again or failed, by its job's exit actions.
	TimedOut bool
	Drained  bool
}

// Observe applies the outcome e if it still applies (Tasks.Current): the
// task exits (Exit), or its checkpoint lands (Drained for a move's old
// placement, else Checkpointed). A stale outcome changes nothing, so a
// late or repeated report is harmless, whoever sends it. The task record
// stays as it was until the next Snapshot, for the driver's records; the
// driver ends the job once Job.Over says so (Finish).
func (c *Cluster) Observe(e Event) Outcome {
	if !c.Tasks.Current(e.Task, e.Ver) {
		return Outcome{Job: -1}
	}
	t := c.Tasks.At(e.Task)
	o := Outcome{Applied: true, Job: t.Job}
	switch e.Kind {
	case EventEnded:
		o.TimedOut = t.Limited
		o.Slots = c.Exit(e.Task, t.Limited)
	case EventLanded:
		if t.Moving {
			o.Drained, o.Slots = true, c.Drained(e.Task)
		} else {
			o.Slots = c.Checkpointed(e.Task)
		}
	default:
		return Outcome{Job: -1}
	}
	return o
}
