package sim_test

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// checker watches every scheduling pass of a replay through
// Options.Inspect and records what the schedule's properties need: no
// node over-committed, and per job its start, its first reservation and
// the earliest reservation it was given while it was the queue head.
type checker struct {
	t        testing.TB
	passes   int
	start    map[string]int64
	first    map[string]int64 // first reservation ever given
	head     map[string]int64 // earliest reservation given as the head
	used     []int32
	started  []bool
	overHead int // reservations given to the head that were later than an earlier one
	// textbook holds every plan against the reference model of the
	// textbook algorithms (reference_test.go); it needs single-slot nodes.
	textbook bool
}

func newChecker(t testing.TB) *checker {
	return &checker{t: t, start: map[string]int64{}, first: map[string]int64{}, head: map[string]int64{}}
}

func (c *checker) inspect(now int64, s *sched.Snapshot, p *sched.Plan) {
	c.passes++
	c.overCommit(s, p)
	if c.textbook {
		if err := checkReference(s, p); err != nil {
			c.t.Fatal(err)
		}
	}
	c.started = append(c.started[:0], make([]bool, len(s.Jobs))...)
	for _, st := range p.Starts {
		c.started[st.Job] = true
		if id := s.Jobs[st.Job].ID; !has(c.start, id) {
			c.start[id] = now
		}
	}
	// The head is the earliest-submitted job still waiting after the
	// pass; snapshot jobs are in submission order.
	head := -1
	for i := range s.Jobs {
		if s.Jobs[i].Waiting > 0 && !c.started[i] {
			head = i
			break
		}
	}
	for _, pe := range p.Pending {
		if pe.Reason != sched.ReasonReserved || pe.At < 0 || pe.At == sched.Never {
			continue
		}
		id := s.Jobs[pe.Job].ID
		if !has(c.first, id) {
			c.first[id] = pe.At
		}
		if pe.Job != head {
			continue
		}
		if at, ok := c.head[id]; ok && pe.At > at {
			c.overHead++
		}
		if at, ok := c.head[id]; !ok || pe.At < at {
			c.head[id] = pe.At
		}
	}
}

// overCommit checks that the running tasks plus the plan's starts fit
// every node. The core refuses an over-committed snapshot too; this
// checks its plans independently.
func (c *checker) overCommit(s *sched.Snapshot, p *sched.Plan) {
	c.used = append(c.used[:0], make([]int32, len(s.Nodes))...)
	add := func(ns []sched.NodeSlots) {
		for _, n := range ns {
			c.used[n.Node] += n.Slots
		}
	}
	for _, a := range s.Allocs {
		add(a.Nodes)
	}
	for _, st := range p.Starts {
		add(st.Nodes)
	}
	for i, u := range c.used {
		if int(u) > s.Nodes[i].Slots {
			c.t.Fatalf("t=%d: node %s holds %d of %d slots", s.Now, s.Nodes[i].Name, u, s.Nodes[i].Slots)
		}
	}
}

func has(m map[string]int64, k string) bool { _, ok := m[k]; return ok }

// lateHeads lists jobs that started after a reservation they were given
// as the queue head.
func (c *checker) lateHeads() []string {
	var late []string
	for id, at := range c.head {
		if st, ok := c.start[id]; ok && st > at {
			late = append(late, fmt.Sprintf("job %s reserved at %d as the head, started at %d", id, at, st))
		}
	}
	return late
}

// lateFirst lists jobs that started after their first reservation.
func (c *checker) lateFirst() []string {
	var late []string
	for id, at := range c.first {
		if st, ok := c.start[id]; ok && st > at {
			late = append(late, fmt.Sprintf("job %s first reserved at %d, started at %d", id, at, st))
		}
	}
	return late
}

// replayLimited replays a trace in full, or only its first raceJobs jobs
// under the race detector, which slows replays some fiftyfold.
func replayLimited(t *testing.T, path, policy string, opt sim.Options) *sim.Result {
	t.Helper()
	w, err := sim.LoadWorkload(path, sim.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := sim.Preset(policy)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := w.Open(set)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	if raceEnabled {
		rp.Input.Jobs = &firstJobs{Source: rp.Input.Jobs, n: raceJobs}
	}
	res, err := sim.Run(rp.Input, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sharedTraces are the public traces; tests read them in place.
var sharedTraces = filepath.Join("..", "..", "shared", "traces")

// TestRealTraces replays the shared traces under FCFS, EASY and
// conservative backfilling and checks what the algorithms guarantee:
//
//   - Every pass is exactly the textbook algorithm: the core starts the
//     same jobs as an independent model of FCFS, EASY and conservative
//     backfilling (Mu'alem and Feitelson 2001), and under conservative
//     gives every queued job the same reservation.
//   - No node is ever over-committed.
//   - FCFS starts jobs in submission order: start times never decrease.
//   - The queue head's reservation is a promise. Time limits are
//     enforced (a job is killed at its limit), so the running jobs free
//     their slots no later than the reservation assumed; EASY only
//     backfills jobs that end by the shadow time or fit beside the head,
//     and conservative only starts jobs whose own reservation is now,
//     which never overlaps an earlier job's. Jobs that arrive later queue
//     behind the head. So the head's reservation never moves later and the
//     head starts no later than the earliest one it was given. For EASY
//     every reservation is the head's, so no EASY reservation is broken.
//
// Conservative's textbook promise for every job, not just the head, is
// TestConservativeCompression's subject.
func TestRealTraces(t *testing.T) {
	traces := []string{"SDSC-SP2-1998-4.2-cln.swf.gz", "hpc2n-subset.swf.gz", "lublin_256.swf.gz"}
	for _, tr := range traces {
		for _, policy := range []string{"fcfs", "easy", "conservative"} {
			t.Run(tr+"/"+policy, func(t *testing.T) {
				t.Parallel()
				c := newChecker(t)
				c.textbook = true
				res := replayLimited(t, filepath.Join(sharedTraces, tr), policy, sim.Options{Until: -1, Inspect: c.inspect})
				if len(res.Jobs) < 1000 || res.Metrics.Jobs != len(res.Jobs) {
					t.Fatalf("%d jobs replayed (metrics say %d)", len(res.Jobs), res.Metrics.Jobs)
				}
				switch policy {
				case "fcfs":
					prev := int64(-1)
					for _, j := range res.Jobs {
						if j.Start == nil {
							continue // still queued when the run stopped
						}
						if *j.Start < prev {
							t.Fatalf("job %s started at %d, before an earlier job's start at %d", j.Name, *j.Start, prev)
						}
						prev = *j.Start
					}
				case "easy", "conservative":
					if len(c.head) == 0 {
						t.Fatal("no head reservation was observed")
					}
					if late := c.lateHeads(); len(late) > 0 {
						t.Fatalf("%d heads started after their reservation, e.g. %s", len(late), late[0])
					}
					if c.overHead > 0 {
						t.Errorf("a head's reservation moved later %d times", c.overHead)
					}
				}
				if policy == "easy" {
					if late := c.lateFirst(); len(late) > 0 {
						t.Fatalf("%d EASY reservations were broken, e.g. %s", len(late), late[0])
					}
				}
			})
		}
	}
}

// firstJobs serves only the first n jobs of a source.
type firstJobs struct {
	sim.Source
	n int
}

func (f *firstJobs) Next() (sim.JobSpec, error) {
	if f.n == 0 {
		return sim.JobSpec{}, io.EOF
	}
	f.n--
	return f.Source.Next()
}
