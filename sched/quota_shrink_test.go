package sched

import "testing"

// TestQuotaReclaimShrinks: vision (quota qv) runs one grown elastic task
// on a node of 4 when nlp (quota 2) asks for 2 slots. Reclaim never takes
// vision below its quota, so a whole task goes only when vision keeps its
// quota without it; otherwise a grown elastic task shrinks, giving back
// what nlp needs, never below min_slots nor vision below its quota.
func TestQuotaReclaimShrinks(t *testing.T) {
	tests := []struct {
		name     string
		qv       int  // vision's quota
		min      int  // the elastic job's min_slots; 0: not elastic
		inter    bool // vision's job is interactive
		resizes  []string
		nlp      Reason
		vision   int // vision's slots once settled
		nlpSlots int
	}{
		{"elastic: shrinks to its quota", 2, 1, false, []string{"el:q-1:4>q-1:2"}, ReasonCheckpointing, 2, 2},
		{"elastic: never below min_slots", 2, 3, false, nil, ReasonNoCapacity, 4, 0},
		{"elastic: never below its project's quota", 3, 1, false, nil, ReasonNoCapacity, 4, 0},
		{"not elastic: the whole task would take vision below quota", 2, 0, false, nil, ReasonNoCapacity, 4, 0},
		{"interactive: never shrunk", 2, 1, true, nil, ReasonNoCapacity, 4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("q", PolicyQuota).nodes("q", 1, 4, "").now(100)
			vision := c.project("vision", -1, tc.qv, 0)
			nlp := c.project("nlp", -1, 2, 0)
			opts := []jobOpt{inProject(vision), slots(4), minSlots(tc.min), waiting(0), preemptible(), submit(0)}
			if tc.inter {
				opts = append(opts, interactive(), kind(KindNotebook))
			}
			el := c.job("el", opts...)
			c.running(el, start(0), on("q-1", 4))
			want := c.job("nlp2", inProject(nlp), slots(2), waiting(1), submit(50))
			s := c.snapshot()
			checkShrink(t, s, tc.resizes, want, tc.nlp, el, tc.vision, tc.nlpSlots)
		})
	}
}
