package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/allot-sched/allot/sched"
)

// Unbounded marks a task that runs until it is killed.
const Unbounded int64 = -1

// Input is a workload ready to replay.
type Input struct {
	Pools  []Pool
	Jobs   Source
	Events []Event
}

// Pool is a pool with its nodes and simulator-only settings.
type Pool struct {
	sched.Pool
	// CheckpointCost is how long a preempted task keeps its slots while it
	// checkpoints.
	CheckpointCost int64
	Nodes          []sched.Node
}

// JobSpec is one submitted job.
type JobSpec struct {
	Name          string
	Kind          sched.Kind
	Submit        int64
	Pool          int
	Tasks         int
	MaxConcurrent int
	Slots         int
	// Duration is each task's run time, or Unbounded.
	Duration    int64
	TimeLimit   int64
	Priority    int
	Weight      float64
	Preemptible bool
	GPU         string
}

// Source yields jobs in non-decreasing submit order; Next returns io.EOF
// after the last one.
type Source interface {
	Next() (JobSpec, error)
}

// EventKind names a scripted event.
type EventKind uint8

// The scripted events.
const (
	EventKill EventKind = iota + 1
	EventSetPriority
	EventSetWeight
)

// Event is a scripted change at a given time.
type Event struct {
	At       int64
	Kind     EventKind
	Job      string
	Priority int
	Weight   float64
}

// Options tune a run.
type Options struct {
	// Until stops the run after the events at this time; negative means
	// run until the event queue is empty.
	Until int64
	// Timeline records the slots each job holds after every change.
	Timeline bool
	// Progress, when set, is called now and then with the clock and the
	// number of jobs submitted so far.
	Progress func(now int64, submitted int)
	// MaxPasses bounds the scheduling passes at one instant; a workload
	// that needs more is reported as an error rather than looping.
	MaxPasses int
}

// SliceSource serves jobs from a slice, sorting them stably by submit time.
type SliceSource struct {
	jobs []JobSpec
	next int
}

// NewSliceSource returns a Source over jobs, keeping file order among jobs
// submitted at the same time.
func NewSliceSource(jobs []JobSpec) *SliceSource {
	s := &SliceSource{jobs: append([]JobSpec(nil), jobs...)}
	sortStable(s.jobs)
	return s
}

// Next implements Source.
func (s *SliceSource) Next() (JobSpec, error) {
	if s.next >= len(s.jobs) {
		return JobSpec{}, io.EOF
	}
	s.next++
	return s.jobs[s.next-1], nil
}

// Len is the number of jobs in the source.
func (s *SliceSource) Len() int { return len(s.jobs) }

func sortStable(jobs []JobSpec) {
	slices.SortStableFunc(jobs, func(a, b JobSpec) int { return cmp.Compare(a.Submit, b.Submit) })
}

// Run replays the input and returns the result.
func Run(in *Input, opt Options) (*Result, error) {
	s, err := newSim(in, opt)
	if err != nil {
		return nil, err
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	return s.result(), nil
}

func checkInput(in *Input) error {
	if len(in.Pools) == 0 {
		return errors.New("no pools")
	}
	if in.Jobs == nil {
		return errors.New("no job source")
	}
	for i, p := range in.Pools {
		if len(p.Nodes) == 0 {
			return fmt.Errorf("pool %q: no nodes", p.Name)
		}
		if p.CheckpointCost < 0 {
			return fmt.Errorf("pool %q: negative checkpoint cost", p.Name)
		}
		for _, n := range p.Nodes {
			if n.Pool != i {
				return fmt.Errorf("pool %q: node %q names pool index %d", p.Name, n.Name, n.Pool)
			}
		}
	}
	return nil
}
