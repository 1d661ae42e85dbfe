package lifecycle_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// errRefused is a store's failed write.
var errRefused = errors.New("the store refused the pass")

// persisting is a stepDriver's store (lifecycle.Persister): it keeps
// the last pass it stored, which Applied checks each applied effect
// against, and may refuse a pass or bound a Step's passes.
type persisting struct {
	// refuseAt, when > 0, is the pass of the next Step that Persist
	// refuses (1: its first); refused is the pass it refused, 0 when the
	// Step settled before, and refusedEffects how many effects that
	// pass had.
	refuseAt, refused, refusedEffects int
	// retry steps again at once, storing every pass, after a refused
	// pass; limit bounds the next Step's passes (0: it does not), -1
	// skips the Step.
	retry bool
	limit int
	// passes counts the passes Persist was asked about in this Step;
	// stored is the last pass stored, next its effect Applied hears of
	// next.
	passes int
	stored []lifecycle.Effect
	next   int
}

// Persist stores the pass, or refuses it when it is the pass refuseAt.
func (d *stepDriver) Persist(now int64, effects []lifecycle.Effect) error {
	d.passes++
	if (now != d.now || d.next != len(d.stored)) && d.err == nil {
		d.err = fmt.Errorf("pass %d at %d asked at %d, with %d of the last pass's %d effects applied",
			d.passes, now, d.now, d.next, len(d.stored))
	}
	if d.passes == d.refuseAt {
		d.refused, d.refusedEffects = d.passes, len(effects)
		d.stored, d.next = d.stored[:0], 0
		return errRefused
	}
	d.stored, d.next = append(d.stored[:0], effects...), 0
	return nil
}

// checkStored checks that applied effect e is the next one stored, and
// did what was stored of it: a start launched the task it resolved, of
// the job it named, on the slots it named; a preemption asked back the
// slots it named.
func (d *stepDriver) checkStored(e *lifecycle.Effect) error {
	if d.next >= len(d.stored) {
		return fmt.Errorf("%v of t%d applied, not stored", e.Op, e.Task)
	}
	s := &d.stored[d.next]
	d.next++
	if s.Op != e.Op || s.Job != e.Job || s.For != e.For || !slices.Equal(s.Nodes, e.Nodes) || s.Backfill != e.Backfill ||
		s.Launches != e.Launches || s.First != e.First {
		return fmt.Errorf("stored %+v, applied %+v", *s, *e)
	}
	switch e.Op {
	case lifecycle.OpStart:
		t := d.c.Tasks.At(e.Task)
		got := lifecycle.Resumed{ID: t.ID, Retries: t.Retries, Work: t.Work}
		if got != s.Launches || s.Slots != e.Slots || s.Slots != sched.Slots(t.Nodes) || t.Job != d.c.Roster.List()[e.Job] {
			return fmt.Errorf("start stored as %+v of job %d on %d slots launched %+v of job record %d on %d",
				s.Launches, e.Job, s.Slots, got, t.Job, sched.Slots(t.Nodes))
		}
	case lifecycle.OpPreempt:
		if s.Task != e.Task || s.Slots != e.Slots {
			return fmt.Errorf("preemption stored as t%d of %d slots, applied to t%d of %d", s.Task, s.Slots, e.Task, e.Slots)
		}
	default:
		if s.Task != e.Task {
			return fmt.Errorf("%v stored for t%d, applied to t%d", e.Op, s.Task, e.Task)
		}
	}
	return nil
}

// step runs the round's Step as persisting says: a refused pass must
// end it with the store's error, and a bounded Step may end unsettled.
func (d *stepDriver) step() error {
	d.passes, d.refused, d.refusedEffects = 0, 0, 0
	if d.limit < 0 {
		return nil
	}
	lifecycle.LimitPasses(&d.c, d.limit)
	defer lifecycle.LimitPasses(&d.c, 0)
	_, err := d.c.Step(d.now, d)
	switch {
	case d.refused > 0:
		if !errors.Is(err, errRefused) {
			return fmt.Errorf("pass %d refused: Step returned %v", d.refused, err)
		}
		if !d.retry {
			return nil
		}
		d.passes, d.refuseAt = 0, 0
		_, err = d.c.Step(d.now, d)
		return err
	case err != nil && d.limit > 0 && strings.Contains(err.Error(), "did not settle"):
		return nil
	}
	return err
}

// TestRefusedPassChangesNothing drives two Clusters by the same random
// events (stepDriver's rounds, same seed): one whose driver refuses a
// random pass of some Steps (the first, second or third, a failed
// write), and a twin whose Step at that instant stops before that pass
// (bounded to the passes before it; none for the first), or, where the
// driver steps again at once, storing all, a twin that stores all the
// first time. After each round both build their snapshot at the
// instant, as the next pass would, and must be the same in every field
// (Fingerprint), and their drivers must have heard of the same effects:
// a refused pass leaves nothing, its instant's earlier passes stay
// applied, and the next Step runs as the twin's does, even at once with
// nothing new to wake it. Every applied effect is the one stored
// (checkStored).
func TestRefusedPassChangesNothing(t *testing.T) {
	policies := []sched.Pool{
		{Name: "fifo", Policy: sched.PolicyFIFO},
		{Name: "easy", Policy: sched.PolicyBackfill},
		{Name: "priority", Policy: sched.PolicyPriority, Preemption: true},
		{Name: "conservative", Policy: sched.PolicyBackfill, Reservations: sched.ReserveConservative},
		{Name: "multifactor", Policy: sched.PolicyMultifactor, Preemption: true, Multifactor: sched.Multifactor{Age: 1, JobSize: 1, MaxAge: 100}},
	}
	for _, pool := range policies {
		t.Run(pool.Name, func(t *testing.T) {
			refused, later, withEffects, retried := 0, 0, 0, 0
			for seed := range uint64(6) {
				a := newStepDriver(rand.New(rand.NewPCG(seed, 13)), pool)
				b := newStepDriver(rand.New(rand.NewPCG(seed, 13)), pool)
				dice := rand.New(rand.NewPCG(seed, 29))
				for round := range 300 {
					a.refuseAt, a.retry = 0, dice.IntN(2) == 0
					if dice.IntN(3) == 0 {
						a.refuseAt = 1 + dice.IntN(3)
					}
					if err := a.round(); err != nil {
						t.Fatalf("seed %d, round %d, t=%d: %v", seed, round, a.now, err)
					}
					b.limit = 0
					if a.refused > 0 && a.retry {
						retried++
					} else if a.refused > 0 {
						b.limit = a.refused - 1 // the passes before the refused one
						if b.limit == 0 {
							b.limit = -1 // none: no Step
						}
					}
					if a.refused > 0 {
						refused++
						if a.refused > 1 {
							later++
						}
						if a.refusedEffects > 0 {
							withEffects++
						}
					}
					if err := b.round(); err != nil {
						t.Fatalf("twin: seed %d, round %d, t=%d: %v", seed, round, b.now, err)
					}
					if err := sameClusters(a, b); err != nil {
						t.Fatalf("seed %d, round %d, t=%d, pass %d refused: %v", seed, round, a.now, a.refused, err)
					}
				}
			}
			// The runs must have refused passes that had effects, and
			// passes after others were applied at their instant.
			if refused == 0 || later == 0 || withEffects == 0 || retried == 0 || retried == refused {
				t.Errorf("%d passes refused, %d after an applied pass, %d with effects, %d stepped again at once: the runs check too little",
					refused, later, withEffects, retried)
			}
		})
	}
}

// sameClusters builds both drivers' snapshots at their instant and
// compares the Clusters whole, and what the drivers heard.
func sameClusters(a, b *stepDriver) error {
	lifecycle.Build(&a.c, a.now)
	lifecycle.Build(&b.c, b.now)
	if lifecycle.Fingerprint(&a.c, false) != lifecycle.Fingerprint(&b.c, false) {
		return fmt.Errorf("the Clusters differ:\n%s", firstDiff(lifecycle.Fingerprint(&a.c, true), lifecycle.Fingerprint(&b.c, true)))
	}
	if a.seen != b.seen || fmt.Sprint(a.promised) != fmt.Sprint(b.promised) {
		return fmt.Errorf("the drivers heard of %v effects, promising %v; the twin %v, promising %v", a.seen, a.promised, b.seen, b.promised)
	}
	return nil
}

// firstDiff shows where a and b first differ, with what leads there.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-300, 0)
	return fmt.Sprintf("refused: …%s\n   twin: …%s", a[from:min(i+100, len(a))], b[from:min(i+100, len(b))])
}

// storeOnce is a Persister that refuses the pass refuseAt of the next
// Step (0: none).
type storeOnce struct{ refuseAt, passes int }

func (s *storeOnce) Applied(int64, *lifecycle.Effect) {}

func (s *storeOnce) Persist(int64, []lifecycle.Effect) error {
	if s.passes++; s.passes == s.refuseAt {
		return errRefused
	}
	return nil
}

// TestStepAgainAfterRefusal: a Step whose driver refused a pass settles
// the instant when asked again at once, with nothing new to wake it.
// One FIFO pool of 100 slots runs jobs of 60 and 30 slots, with one of
// 30 blocked behind them, 64 jobs that no node can take (a GPU type the
// pool lacks; the queue passes them) and one of 1 slot. At t=10 the
// job of 30 ends: the first pass starts the blocked job, which fills the
// cluster as before the end, and sees no blocked job in its window of 64
// waiting jobs, so a second pass looks further and starts the last job.
// Where the driver refused that second pass, a Step that took the
// cluster for quiet (as full as it was and nothing submitted) would
// leave the last job waiting.
func TestStepAgainAfterRefusal(t *testing.T) {
	for _, refuseAt := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("refused pass %d", refuseAt), func(t *testing.T) {
			var c lifecycle.Cluster
			c.Snap.Pools = []sched.Pool{{Name: "fifo", Policy: sched.PolicyFIFO}}
			c.Snap.Nodes = []sched.Node{{Name: "n0", Slots: 100, GPU: "a"}}
			c.Configure(lifecycle.StepOptions{})
			job := func(slots int, work int64, gpu string) int32 {
				seq := int64(len(c.Jobs) + 1)
				return submit(&c, 0, lifecycle.Submission{Tasks: 1, Fresh: lifecycle.FreshWork(work, slots, false), Project: -1, Account: -1},
					sched.Job{ID: fmt.Sprintf("j%d", seq), Seq: seq, Slots: slots, MaxRunning: 1, Weight: 1, GPU: gpu, Project: -1, Account: -1})
			}
			job(60, 1000, "")
			short := job(30, 10, "")
			blocked := job(30, 1000, "")
			for range 64 {
				job(1, 1000, "b")
			}
			last := job(1, 1000, "")
			s := &storeOnce{}
			if _, err := c.Step(0, s); err != nil {
				t.Fatal(err)
			}
			if c.InUse() != 90 || c.Jobs[blocked].Held != 0 {
				t.Fatalf("at 0: %d slots in use, the blocked job holds %d; want 90 and 0", c.InUse(), c.Jobs[blocked].Held)
			}
			for _, ti := range c.Tasks.Running() {
				if r := c.Tasks.At(ti); r.Job == short {
					c.Observe(10, lifecycle.Event{Kind: lifecycle.EventEnded, Task: ti, Ver: r.Ver})
				}
			}
			*s = storeOnce{refuseAt: refuseAt}
			_, err := c.Step(10, s)
			if refuseAt > 0 != errors.Is(err, errRefused) {
				t.Fatalf("Step refusing pass %d: %v", refuseAt, err)
			}
			*s = storeOnce{}
			if _, err := c.Step(10, s); err != nil {
				t.Fatal(err)
			}
			if c.InUse() != 91 || c.Jobs[blocked].Held != 30 || c.Jobs[last].Held != 1 {
				t.Errorf("at 10: %d slots in use, the blocked job holds %d, the last %d; want 91, 30 and 1",
					c.InUse(), c.Jobs[blocked].Held, c.Jobs[last].Held)
			}
		})
	}
}
