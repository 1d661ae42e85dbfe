package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkSchedulePassAfterChange times a warm pass after a small change,
// on BenchmarkSchedulePass's snapshots: before each pass four queued jobs
// exit, four are submitted, four running tasks end and the previous
// plan's first four starts run. "rev" gives every job a Rev, as a caller
// that keeps them does (jobmemo.go); "norev" makes the same changes with
// no Revs, so every pass works everything out again. Only the passes are
// timed; cpu-ms/op is the CPU time of the passes alone. "applied" is
// "rev" with the previous plan's preemptions carried out too, as the
// master and the simulator do: each victim drains (Alloc.Preempting) and
// its checkpoint lands within the grace period, half of them before the
// next pass and the rest before the one after, when the task leaves its
// node and its job waits for it again. "rev" leaves them undone, so every
// pass plans the same preemptions again.
// The first plan's preemptions (some 25,000 under priority) are a large
// change, and under fair share its victims' jobs and those they were
// preempted for move the shares for a dozen passes more, so "applied"
// makes untimed passes first, two at least, until a plan preempts no
// more tasks than the change's size (32 at most).
func BenchmarkSchedulePassAfterChange(b *testing.B) {
	for _, fill := range []float64{1, 0.5} {
		for _, pol := range realPolicies {
			base := realSnapshot(10_000, 100_000, fill, pol.pool)
			for _, mode := range []string{"rev", "norev", "applied"} {
				b.Run(fmt.Sprintf("fill=%v/policy=%s/%s", fill, pol.name, mode), func(b *testing.B) {
					benchAfterChange(b, base, mode != "norev", mode == "applied")
				})
			}
		}
	}
}

// BenchmarkSchedulePassChangeSize is the "applied" pass of
// BenchmarkSchedulePassAfterChange after changes of 4, 40 and 400 (that
// many starts applied, tasks ended, jobs exited and submitted), on the
// full cluster: what a pass costs per change, and what it costs whatever
// the change, can be read off.
func BenchmarkSchedulePassChangeSize(b *testing.B) {
	for _, pol := range realPolicies {
		base := realSnapshot(10_000, 100_000, 1, pol.pool)
		for _, n := range []int{4, 40, 400} {
			b.Run(fmt.Sprintf("policy=%s/change=%d", pol.name, n), func(b *testing.B) {
				benchChange(b, base, true, true, n)
			})
		}
	}
}

func benchAfterChange(b *testing.B, base *Snapshot, revs, preempt bool) {
	benchChange(b, base, revs, preempt, 4)
}

// benchChange times passes after changes of size n.
func benchChange(b *testing.B, base *Snapshot, revs, preempt bool, n int) {
	s := *base
	s.Jobs, s.Allocs = slices.Clone(base.Jobs), slices.Clone(base.Allocs)
	c := changer{rng: rand.New(rand.NewPCG(5, 9)), revs: revs, preempt: preempt, n: n}
	for i := range s.Jobs {
		s.Jobs[i].Rev = c.next()
	}
	var sc Scheduler
	p, err := sc.Schedule(&s)
	if err != nil {
		b.Fatal(err)
	}
	for k := 0; preempt && k < 32 && (k < 2 || len(p.Preemptions) > n); k++ {
		c.change(&s, p)
		if p, err = sc.Schedule(&s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var cpu int64
	cpuOK := true
	for b.Loop() {
		b.StopTimer()
		c.change(&s, p)
		cpu0, ok0 := processCPU()
		b.StartTimer()
		if p, err = sc.Schedule(&s); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu1, ok1 := processCPU()
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok0 && ok1
		b.StartTimer()
	}
	if cpuOK {
		b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// changer makes the small changes between two passes, as a caller would.
type changer struct {
	rng  *rand.Rand
	rev  uint64
	revs bool
	seq  int
	// preempt carries out the plan's preemptions too.
	preempt bool
	// drain runs beside the snapshot's Allocs when preempt: for a victim
	// of a plan, how many changes from now its checkpoint lands (0 for a
	// task not draining).
	drain []int8
	// landed is the slots of the victims landed in the last change, which
	// the next change's starts take again.
	landed int
	// n is the change's size (4 when 0).
	n int
}

func (c *changer) next() uint64 {
	if !c.revs {
		return 0
	}
	c.rev++
	return c.rev
}

// change carries out p's preemptions when c.preempt (land), applies up
// to n (c.n, or four) of p's starts, and more while the slots of the
// victims landed in the last change are not taken again, ends n running
// tasks, removes n queued jobs and submits n.
func (c *changer) change(s *Snapshot, p *Plan) {
	n := c.n
	if n == 0 {
		n = 4
	}
	refill := c.landed
	c.landed = 0
	if c.preempt {
		c.land(s, p)
	}
	for i, st := range p.Starts {
		if i >= n {
			if refill <= 0 {
				break
			}
			refill -= Slots(st.Nodes)
		}
		s.Allocs = append(s.Allocs, Alloc{Job: st.Job, Nodes: slices.Clone(st.Nodes), Start: s.Now})
		s.Jobs[st.Job].Waiting--
		s.Jobs[st.Job].Rev = c.next()
		if c.preempt {
			c.drain = append(c.drain, 0)
		}
	}
	for range n {
		a := c.rng.IntN(len(s.Allocs))
		s.Allocs = slices.Delete(s.Allocs, a, a+1)
		if c.preempt {
			c.drain = slices.Delete(c.drain, a, a+1)
		}
	}
	gone := make([]bool, len(s.Jobs))
	running := make([]bool, len(s.Jobs))
	for i := range s.Allocs {
		running[s.Allocs[i].Job] = true
	}
	for range n {
		for {
			j := c.rng.IntN(len(s.Jobs))
			if s.Jobs[j].Waiting > 0 && !gone[j] && !running[j] {
				gone[j] = true
				break
			}
		}
	}
	c.renumber(s, gone)
	for range n {
		j := s.Jobs[len(s.Jobs)-1-c.rng.IntN(1000)]
		c.seq++
		j.ID, j.Submit, j.Seq, j.Waiting = fmt.Sprintf("sub%d", c.seq), s.Now, int64(1_000_000+c.seq), 1
		j.Priority, j.Rev = 1+c.rng.IntN(99), c.next()
		s.Jobs = append(s.Jobs, j)
	}
	s.Now++
}

// renumber removes the gone jobs from s and renumbers the allocations'
// jobs.
func (c *changer) renumber(s *Snapshot, gone []bool) {
	newIdx := make([]int, len(s.Jobs))
	kept := s.Jobs[:0]
	for i := range s.Jobs {
		newIdx[i] = len(kept)
		if !gone[i] {
			kept = append(kept, s.Jobs[i])
		}
	}
	s.Jobs = kept
	for i := range s.Allocs {
		s.Allocs[i].Job = newIdx[s.Allocs[i].Job]
	}
}

// land marks p's victims draining and lands the checkpoints due: every
// other victim (in the plan's order) lands at once, the rest after one
// more pass, so that no victim drains for longer than a pass, as with a
// checkpoint landing within the grace period. A landed task leaves its
// node and its job waits for it again (lifecycle's Checkpointed), with a
// new Rev. Its slots are counted in c.landed: the next change runs that
// many slots of the next plan's starts beyond the first n, as a cluster
// that runs every start would (without it, a cluster whose plans preempt
// and whose starts mostly do not run empties, pass after pass).
func (c *changer) land(s *Snapshot, p *Plan) {
	c.drain = append(c.drain, make([]int8, len(s.Allocs)-len(c.drain))...)
	for i, pr := range p.Preemptions {
		s.Allocs[pr.Alloc].Preempting = true
		c.drain[pr.Alloc] = 2 - int8(i%2)
	}
	k := 0
	for i := range s.Allocs {
		if c.drain[i] > 0 {
			if c.drain[i]--; c.drain[i] == 0 {
				j := &s.Jobs[s.Allocs[i].Job]
				j.Waiting++
				j.Rev = c.next()
				c.landed += Slots(s.Allocs[i].Nodes)
				continue
			}
		}
		s.Allocs[k], c.drain[k] = s.Allocs[i], c.drain[i]
		k++
	}
	clear(s.Allocs[k:])
	s.Allocs, c.drain = s.Allocs[:k], c.drain[:k]
}
