package sim

import (
	"errors"
	"fmt"
	"io"

	"github.com/allot-sched/allot/sched"
)

// job is the simulator's record of a submitted job.
type job struct {
	spec JobSpec
	seq  int64
	// waiting counts tasks ready to start; resume holds the remaining work
	// of preempted tasks, which start before fresh ones.
	waiting int
	resume  []int64
	running int // tasks holding slots, checkpointing ones included
	held    int // slots held
	done    int // tasks that ended (completed or timed out)
	timeout int
	state   State
	start   int64
	end     int64
	preempt int
	alive   bool
}

// task is one attempt of a task holding slots.
type task struct {
	job        int32
	nodes      []sched.NodeSlots
	start      int64
	work       int64 // remaining work when this attempt started, or Unbounded
	ver        uint32
	preempting bool
	backfilled bool
	limited    bool // the attempt ends at its time limit, killed
	alive      bool
}

type sim struct {
	in    *Input
	opt   Options
	now   int64
	q     queue
	jobs  []job
	tasks []task
	free  []int32 // free task slots
	// active lists submitted jobs still queued or running, in submission
	// order; running lists live tasks. Both are compacted lazily.
	active  []int32
	running []int32
	byName  map[string]int32
	later   map[string][]Event // scripted changes for jobs not yet submitted
	next    JobSpec
	hasNext bool
	nextSeq int64

	scheduler sched.Scheduler
	snap      sched.Snapshot
	snapJob   []int32 // snapshot job index -> job
	jobSnap   []int32 // job -> snapshot job index
	snapTask  []int32 // snapshot alloc index -> task

	rec recorder
}

func newSim(in *Input, opt Options) (*sim, error) {
	if err := checkInput(in); err != nil {
		return nil, err
	}
	if opt.MaxPasses <= 0 {
		opt.MaxPasses = 1000
	}
	s := &sim{in: in, opt: opt, byName: map[string]int32{}, later: map[string][]Event{}}
	for _, p := range in.Pools {
		s.snap.Pools = append(s.snap.Pools, p.Pool)
		s.snap.Nodes = append(s.snap.Nodes, p.Nodes...)
	}
	for i, e := range in.Events {
		s.q.push(event{at: e.At, kind: evScript, ref: int32(i)})
	}
	s.rec.init(s)
	return s, s.pull()
}

// pull reads the next job from the source into the one-job lookahead.
func (s *sim) pull() error {
	spec, err := s.in.Jobs.Next()
	if errors.Is(err, io.EOF) {
		s.hasNext = false
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading jobs: %w", err)
	}
	if s.hasNext && spec.Submit < s.next.Submit {
		return fmt.Errorf("job %q: submitted at %d, before the previous job (%d): jobs must come in submit order",
			spec.Name, spec.Submit, s.next.Submit)
	}
	if spec.Pool < 0 || spec.Pool >= len(s.in.Pools) {
		return fmt.Errorf("job %q: pool index %d out of range", spec.Name, spec.Pool)
	}
	s.next, s.hasNext = spec, true
	return nil
}

// nextTime is the time of the next event or submission.
func (s *sim) nextTime() (int64, bool) {
	t, ok := int64(0), false
	if !s.q.empty() {
		t, ok = s.q.peek(), true
	}
	if s.hasNext && (!ok || s.next.Submit < t) {
		t, ok = s.next.Submit, true
	}
	return t, ok
}

func (s *sim) loop() error {
	first := true
	for {
		t, ok := s.nextTime()
		if !ok || (s.opt.Until >= 0 && t > s.opt.Until) {
			break
		}
		s.rec.advance(t)
		s.now = t
		if err := s.step(); err != nil {
			return err
		}
		if s.opt.Progress != nil && (first || s.nextSeq%1024 == 0) {
			s.opt.Progress(s.now, int(s.nextSeq))
		}
		first = false
	}
	if s.opt.Until >= 0 && s.opt.Until > s.now {
		s.rec.advance(s.opt.Until)
		s.now = s.opt.Until
	}
	if s.opt.Progress != nil {
		s.opt.Progress(s.now, int(s.nextSeq))
	}
	return nil
}

// step handles everything due now, then schedules until nothing changes.
func (s *sim) step() error {
	for !s.q.empty() && s.q.peek() == s.now && s.q.items[0].kind < evScript {
		s.handle(s.q.pop())
	}
	for s.hasNext && s.next.Submit == s.now {
		s.submit(s.next)
		if err := s.pull(); err != nil {
			return err
		}
	}
	for !s.q.empty() && s.q.peek() == s.now {
		s.handle(s.q.pop())
	}
	for pass := 0; ; pass++ {
		if pass == s.opt.MaxPasses {
			return fmt.Errorf("t=%d: scheduling did not settle after %d passes", s.now, pass)
		}
		changed, err := s.schedule()
		if err != nil {
			return fmt.Errorf("t=%d: %w", s.now, err)
		}
		if !changed {
			break
		}
	}
	s.rec.settled()
	return nil
}

func (s *sim) handle(e event) {
	switch e.kind {
	case evEnd:
		t := &s.tasks[e.ref]
		if t.alive && t.ver == e.ver {
			s.endTask(e.ref)
		}
	case evCheckpoint:
		t := &s.tasks[e.ref]
		if t.alive && t.ver == e.ver {
			s.checkpointed(e.ref)
		}
	case evScript:
		s.script(s.in.Events[e.ref])
	}
}

func (s *sim) submit(spec JobSpec) {
	ji := int32(len(s.jobs))
	s.nextSeq++
	j := job{spec: spec, seq: s.nextSeq, waiting: spec.Tasks, state: StatePending, start: -1, end: -1, alive: true}
	s.jobs = append(s.jobs, j)
	s.jobSnap = append(s.jobSnap, -1)
	if len(s.in.Events) > 0 {
		s.byName[spec.Name] = ji
	}
	s.active = append(s.active, ji)
	for _, e := range s.later[spec.Name] {
		s.script(e)
	}
	delete(s.later, spec.Name)
	if spec.Tasks == 0 {
		s.finishJob(ji, StateCompleted)
	}
}

func (s *sim) script(e Event) {
	ji, ok := s.byName[e.Job]
	if !ok {
		s.later[e.Job] = append(s.later[e.Job], e)
		return
	}
	j := &s.jobs[ji]
	switch e.Kind {
	case EventSetPriority:
		j.spec.Priority = e.Priority
	case EventSetWeight:
		j.spec.Weight = e.Weight
	case EventKill:
		s.kill(ji)
	}
}

func (s *sim) kill(ji int32) {
	j := &s.jobs[ji]
	if !j.alive {
		return
	}
	for _, ti := range s.running {
		t := &s.tasks[ti]
		if t.alive && t.job == ji {
			s.release(ti)
		}
	}
	j.waiting = 0
	j.resume = j.resume[:0]
	s.finishJob(ji, StateKilled)
}
