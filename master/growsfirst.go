package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/sched"
)

// A reservation is no guarantee where a running elastic task of the pool
// that outranks the reserved job holds less than its size: in a priority
// or multifactor pool it grows before strictly less important jobs start
// (sched's elastic_ahead.go), into the very slots the reservation counts
// on, and the reservation moves later (trial n F12: "reserved to start
// in 6m", then job 13 grew 1 → 4 and it was 1h 54m). The reserved job's
// message says so.

// growNotes makes the notes of one pass's reserved jobs, on its
// snapshot s: the multifactor priorities once, and whether a pool has a
// task that may grow once a pool (a conservative pool reserves many).
type growNotes struct {
	s       *sched.Snapshot
	factors []sched.Factors
	none    map[int]bool // pools with no task that may grow
}

// note is what a reserved job ji's message adds where running elastic
// jobs of its pool outrank it and hold less than their size: "; no
// guarantee: job 13 (elastic, holds 1 of its 4 slots) ranks above it
// and grows first into slots that free". "" where none does.
func (g *growNotes) note(ji int) string {
	s := g.s
	if ji < 0 || ji >= len(s.Jobs) || s.Jobs[ji].Pool < 0 || g.none[s.Jobs[ji].Pool] {
		return ""
	}
	if growableIn(s, s.Jobs[ji].Pool, -1) < 0 {
		if g.none == nil {
			g.none = map[int]bool{}
		}
		g.none[s.Jobs[ji].Pool] = true
		return ""
	}
	w := &s.Jobs[ji]
	pl := &s.Pools[w.Pool]
	var prio []sched.Factors
	if pl.Policy == sched.PolicyMultifactor {
		if g.factors == nil {
			g.factors, _ = sched.PriorityFactors(s)
		}
		prio = g.factors
	}
	var names []string
	seen := map[int]bool{}
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		o := &s.Jobs[a.Job]
		if a.Job == ji || seen[a.Job] || o.Pool != w.Pool || o.MinSlots == 0 || o.Interactive || a.Preempting ||
			sched.Slots(a.Nodes) >= o.Slots {
			continue
		}
		// GrowthBlockedBy: whether ji, waiting for slots, keeps o from
		// growing; where it does not, o grows ahead of it.
		if sched.GrowthBlockedBy(pl, o, w, sched.ReasonReserved, mfPriority(prio, a.Job), mfPriority(prio, ji)) {
			continue
		}
		seen[a.Job] = true
		names = append(names, elasticName(s, a.Job, "job "+o.ID))
	}
	if len(names) == 0 {
		return ""
	}
	verb := "ranks above it and grows"
	if len(names) > 1 {
		verb = "rank above it and grow"
	}
	return fmt.Sprintf("; no guarantee: %s %s first into slots that free", andList(names), verb)
}

// elasticName names running elastic job ji (label) with what its
// smallest task holds of its size: "job 13 (elastic, holds 1 of its 4
// slots)".
func elasticName(s *sched.Snapshot, ji int, label string) string {
	held := -1
	for ai := range s.Allocs {
		if a := &s.Allocs[ai]; a.Job == ji && !a.Preempting {
			if n := sched.Slots(a.Nodes); held < 0 || n < held {
				held = n
			}
		}
	}
	if held < 0 {
		return label + " (elastic)"
	}
	return fmt.Sprintf("%s (elastic, holds %d of its %s)", strings.TrimSpace(label), held, slotWord(s.Jobs[ji].Slots))
}
