package sched

import (
	"cmp"
	"slices"
	"testing"
)

// TestQuotaOwnShrinks: work vision is entitled to (a notebook, or a
// non-preemptible job, within its quota) takes the place of vision's own
// preemptible work. Where that work is an elastic task grown past
// min_slots on a full node, the task shrinks, giving back what the
// waiting task needs, instead of being evicted whole (found live:
// vision's elastic job 15, 4 slots with min_slots 2, grown to 4 on n1, was
// preempted whole for a vision notebook of 2). Where no shrink frees
// enough, the project's work is evicted as before.
func TestQuotaOwnShrinks(t *testing.T) {
	tests := []struct {
		name     string
		min      int  // the elastic job's min_slots; 0: not elastic
		limit    int  // vision's limit; 0: none
		nbSlots  int  // the waiting job's slots
		notebook bool // the waiting job is a notebook, else a non-preemptible experiment
		borrowed bool // vision also runs 1 slot of borrowing work (on a second node)
		resizes  []string
		victims  []string
		vision   int // the elastic job's slots once settled
		waiter   int // the waiting job's slots once settled
		node     int // q-1's slots; 0: 4
	}{
		{"live case: notebook of 2 shrinks the grown job to 2", 2, 0, 2, true, false, []string{"el:q-1:4>q-1:2"}, nil, 2, 2, 0},
		{"non-preemptible experiment within quota: shrinks too", 2, 0, 2, false, false, []string{"el:q-1:4>q-1:2"}, nil, 2, 2, 0},
		{"gives back only what the waiting task lacks", 1, 0, 1, true, false, []string{"el:q-1:4>q-1:3"}, nil, 3, 1, 0},
		{"never below min_slots: evicted whole as before", 3, 0, 2, true, false, nil, []string{"el"}, 0, 2, 0},
		{"not elastic: evicted whole as before", 0, 0, 2, true, false, nil, []string{"el"}, 0, 2, 0},
		{"over the limit: shrinks by what the limit asks", 1, 4, 2, true, false, []string{"el:q-1:4>q-1:2"}, nil, 2, 2, 0},
		{"over the limit: gives what the limit asks, more than the node lacks", 1, 4, 2, true, false, []string{"el:q-1:4>q-1:2"}, nil, 2, 2, 5},
		{"over the limit: the project's borrowing work goes first", 1, 5, 1, true, true, nil, []string{"low"}, 4, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("q", PolicyQuota).nodes("q", 1, cmp.Or(tc.node, 4), "").now(100)
			vision := c.project("vision", -1, 4, tc.limit)
			c.project("nlp", -1, 4, 0)
			el := c.job("el", inProject(vision), slots(4), minSlots(tc.min), waiting(0), preemptible(), submit(0))
			c.running(el, start(0), on("q-1", 4))
			if tc.borrowed {
				c.node("q", "q-2", 1, "")
				low := c.job("low", inProject(vision), slots(1), waiting(0), preemptible(), borrow(), submit(0))
				c.running(low, start(0), on("q-2", 1))
			}
			opts := []jobOpt{inProject(vision), slots(tc.nbSlots), waiting(1), submit(50)}
			if tc.notebook {
				opts = append(opts, interactive(), kind(KindNotebook))
			}
			w := c.job("w", opts...)
			s := c.snapshot()
			p := mustSchedule(t, s)
			if got := resizeList(s, &p); !slices.Equal(got, tc.resizes) {
				t.Fatalf("resizes %v, want %v\n%s", got, tc.resizes, fmtPlan(s, &p))
			}
			var victims []string
			for _, a := range preempted(&p) {
				victims = append(victims, s.Jobs[s.Allocs[a].Job].ID)
			}
			if !slices.Equal(victims, tc.victims) {
				t.Fatalf("victims %v, want %v\n%s", victims, tc.victims, fmtPlan(s, &p))
			}
			if len(p.Starts) != 0 {
				t.Fatalf("want the waiting task held, not started\n%s", fmtPlan(s, &p))
			}
			mustPending(t, s, &p, w, ReasonCheckpointing)
			s2, last, _ := settle(t, s, 10)
			held := map[int]int{}
			for _, al := range s2.Allocs {
				held[al.Job] += Slots(al.Nodes)
			}
			if held[el] != tc.vision || held[w] != tc.waiter {
				t.Fatalf("settled holdings el=%d w=%d, want %d and %d\n%s", held[el], held[w], tc.vision, tc.waiter, fmtPlan(s2, &last))
			}
		})
	}
}
