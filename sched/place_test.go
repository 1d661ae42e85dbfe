package sched

import (
	"slices"
	"testing"
)

// usedNode describes slots held on a node by a non-preemptible filler job.
type usedNode struct {
	node string
	used int
}

// placeCluster builds a FIFO pool "p" with the given nodes (name → size,
// GPU) in order, a filler job holding the given slots, and returns the
// builder with the filler job's index.
func placeCluster(t *testing.T, opts []poolOpt, sizes []int, gpus []string, used []usedNode) *cluster {
	t.Helper()
	b := newCluster(t).pool("p", PolicyFIFO, opts...)
	for i, sz := range sizes {
		g := "h100"
		if gpus != nil {
			g = gpus[i]
		}
		b.nodes("p", 1, sz, g)
	}
	filler := b.job("filler", waiting(0))
	for _, u := range used {
		if u.used > 0 {
			b.running(filler, start(0), on(u.node, u.used))
		}
	}
	return b
}

func TestPlacementSingleNode(t *testing.T) {
	tests := []struct {
		name   string
		opts   []poolOpt
		sizes  []int
		gpus   []string
		used   []usedNode
		need   int
		gpu    string
		want   string // placement, "" for none
		reason Reason // when want is ""
	}{
		{
			name: "best fit takes the node with exactly the free slots", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 2}, {"p-2", 5}}, need: 3, want: "p-2:3",
		},
		{
			name: "best fit takes the fullest node that fits", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 2}, {"p-2", 5}}, need: 4, want: "p-1:4",
		},
		{
			name: "best fit uses an empty node only when nothing fuller fits", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 2}, {"p-2", 5}}, need: 7, want: "p-3:7",
		},
		{
			name: "best fit tie goes to the lowest node index", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 4}, {"p-2", 4}, {"p-3", 4}}, need: 2, want: "p-1:2",
		},
		{
			name: "best fit tie across GPU groups goes to the lowest node index", sizes: []int{8, 8, 8},
			gpus: []string{"a100", "h100", "a100"},
			used: []usedNode{{"p-1", 8}, {"p-2", 4}, {"p-3", 4}}, need: 4, want: "p-2:4",
		},
		{
			name: "best fit compares free slots across node sizes", sizes: []int{8, 4},
			used: []usedNode{{"p-1", 3}}, need: 4, want: "p-2:4",
		},
		{
			name: "spread takes the emptiest node", opts: []poolOpt{withSpread()}, sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 2}, {"p-2", 5}, {"p-3", 1}}, need: 3, want: "p-3:3",
		},
		{
			name: "spread tie goes to the lowest node index", opts: []poolOpt{withSpread()}, sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 5}, {"p-2", 1}, {"p-3", 1}}, need: 3, want: "p-2:3",
		},
		{
			name: "spread prefers a bigger empty node", opts: []poolOpt{withSpread()}, sizes: []int{4, 8},
			need: 2, want: "p-2:2",
		},
		{
			name: "GPU type constraint skips a better fit of another type", sizes: []int{8, 8},
			gpus: []string{"a100", "h100"}, used: []usedNode{{"p-1", 6}}, need: 2, gpu: "h100", want: "p-2:2",
		},
		{
			name: "GPU type constraint with the type full is no capacity", sizes: []int{8, 8},
			gpus: []string{"a100", "h100"}, used: []usedNode{{"p-2", 8}}, need: 2, gpu: "h100", reason: ReasonNoCapacity,
		},
		{
			name: "GPU type absent from the pool is gpu_type", sizes: []int{8, 8},
			gpus: []string{"a100", "h100"}, need: 1, gpu: "v100", reason: ReasonGPUType,
		},
		{
			name: "GPU type present but its nodes too small is no nodes", sizes: []int{8, 4},
			gpus: []string{"a100", "h100"}, need: 6, gpu: "h100", reason: ReasonNoNodes,
		},
		{
			name: "task larger than the whole pool is no nodes", sizes: []int{8, 8},
			need: 17, reason: ReasonNoNodes,
		},
		{
			name: "enough slots in total but not on one node is fragmented", sizes: []int{8, 8},
			used: []usedNode{{"p-1", 4}, {"p-2", 4}}, need: 6, reason: ReasonFragmented,
		},
		{
			name: "not enough slots in total is no capacity", sizes: []int{8, 8},
			used: []usedNode{{"p-1", 6}, {"p-2", 6}}, need: 6, reason: ReasonNoCapacity,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := placeCluster(t, tc.opts, tc.sizes, tc.gpus, tc.used)
			j := b.job("j", slots(tc.need), gpuType(tc.gpu), submit(1))
			s := b.snapshot()
			p := mustSchedule(t, s)
			got := startPlacements(s, &p, j)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("started on %v, want no start", got)
				}
				pe := mustPending(t, s, &p, j, tc.reason)
				if pe.Need != tc.need {
					t.Errorf("pending Need = %d, want %d", pe.Need, tc.need)
				}
				return
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("placement %v, want [%s]\n%s", got, tc.want, fmtPlan(s, &p))
			}
			mustNotPending(t, s, &p, j)
		})
	}
}

func TestPlacementGang(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []int
		used   []usedNode
		need   int
		want   string
		reason Reason
	}{
		{
			name: "16 slots on 8-slot nodes take two whole nodes", sizes: []int{8, 8, 8},
			need: 16, want: "p-1:8,p-2:8",
		},
		{
			name: "16 slots skip partly used nodes", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 1}}, need: 16, want: "p-2:8,p-3:8",
		},
		{
			name: "12 slots take a whole node plus 4 on a partly used node by best fit", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-2", 4}, {"p-3", 2}}, need: 12, want: "p-1:8,p-2:4",
		},
		{
			name: "12 slots take a second whole node when no partly used node fits", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-3", 6}}, need: 12, want: "p-1:8,p-2:4",
		},
		{
			name: "16 slots fail all or nothing with one whole node free", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-2", 4}, {"p-3", 4}}, need: 16, reason: ReasonFragmented,
		},
		{
			name: "24 slots with 16 free is no capacity", sizes: []int{8, 8, 8},
			used: []usedNode{{"p-1", 8}}, need: 24, reason: ReasonNoCapacity,
		},
		{
			name: "a gang prefers the group with the largest nodes", sizes: []int{4, 4, 4, 8, 8},
			need: 12, want: "p-4:8,p-5:4",
		},
		{
			name: "a gang on one-slot nodes takes one slot of each", sizes: []int{1, 1, 1, 1},
			used: []usedNode{{"p-2", 1}}, need: 3, want: "p-1:1,p-3:1,p-4:1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := placeCluster(t, nil, tc.sizes, nil, tc.used)
			j := b.job("gang", slots(tc.need), submit(1))
			s := b.snapshot()
			p := mustSchedule(t, s)
			got := startPlacements(s, &p, j)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("gang partly or wrongly placed: %v", got)
				}
				mustPending(t, s, &p, j, tc.reason)
				return
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("placement %v, want [%s]\n%s", got, tc.want, fmtPlan(s, &p))
			}
			if n := Slots(startsOf(&p, j)[0].Nodes); n != tc.need {
				t.Fatalf("gang placed %d slots, want %d", n, tc.need)
			}
		})
	}
}

// TestGangsDoNotDeadlock: two 16-slot gangs on three 8-slot nodes; the
// first takes two whole nodes and the second waits whole, holding nothing.
func TestGangsDoNotDeadlock(t *testing.T) {
	b := newCluster(t).pool("p", PolicyPriority).nodes("p", 3, 8, "h100")
	g1 := b.job("g1", slots(16), submit(0))
	g2 := b.job("g2", slots(16), submit(1))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if got := startPlacements(s, &p, g1); !slices.Equal(got, []string{"p-1:8,p-2:8"}) {
		t.Fatalf("g1 placement %v", got)
	}
	if len(startsOf(&p, g2)) != 0 {
		t.Fatalf("g2 started: %s", fmtPlan(s, &p))
	}
	mustPending(t, s, &p, g2, ReasonNoCapacity)
}

func TestZeroSlotTasks(t *testing.T) {
	t.Run("respect the per-node limit", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFairShare).nodes("p", 2, 8, "", zeroLimit(2))
		filler := b.job("filler", waiting(0))
		b.running(filler, start(0), on("p-1", 8))
		b.running(filler, start(0), on("p-2", 8))
		tb := b.job("tb", slots(0), waiting(1), kind(KindTensorBoard))
		b.running(tb, start(0), on("p-1", 0))
		nb := b.job("nb", slots(0), waiting(5), kind(KindNotebook), submit(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		// Full nodes still run zero-slot tasks: tb's one task goes to p-1's
		// second place; nb gets p-2's two places, then the limit is hit.
		if got := startPlacements(s, &p, tb); !slices.Equal(got, []string{"p-1:0"}) {
			t.Fatalf("tb placements %v", got)
		}
		if got := startPlacements(s, &p, nb); !slices.Equal(got, []string{"p-2:0", "p-2:0"}) {
			t.Fatalf("nb placements %v\n%s", got, fmtPlan(s, &p))
		}
		mustPending(t, s, &p, nb, ReasonZeroSlotFull)
		mustNotPending(t, s, &p, tb)
		if m := (Pending{Job: nb, Reason: ReasonZeroSlotFull, Blocker: -1, At: -1}).Message(s); m == "" {
			t.Fatal("empty message")
		}
	})
	t.Run("limit zero runs none", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 2, 8, "", zeroLimit(0))
		j := b.job("cpu", slots(0))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 {
			t.Fatalf("started: %s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, j, ReasonZeroSlotFull)
	})
	t.Run("do not use slots and are not blocked by slot jobs", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 4, "")
		x := b.job("x", waiting(0))
		b.running(x, start(0), on("p-1", 2))
		big := b.job("big", slots(4), submit(0)) // blocks the slot jobs behind it
		small := b.job("small", slots(1), submit(1))
		cpu := b.job("cpu", slots(0), submit(2))
		s := b.snapshot()
		p := mustSchedule(t, s)
		mustPending(t, s, &p, big, ReasonNoCapacity)
		mustPending(t, s, &p, small, ReasonBehind)
		if got := startPlacements(s, &p, cpu); !slices.Equal(got, []string{"p-1:0"}) {
			t.Fatalf("cpu placements %v", got)
		}
	})
	order := []struct {
		name   string
		policy Policy
		first  string // the job that gets the one free place
	}{
		{"FIFO order under fifo", PolicyFIFO, "early-low"},
		{"FIFO order under fair share", PolicyFairShare, "early-low"},
		{"FIFO order under backfill", PolicyBackfill, "early-low"},
		{"priority order under priority", PolicyPriority, "late-high"},
	}
	for _, tc := range order {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", tc.policy).nodes("p", 1, 8, "", zeroLimit(1))
			early := b.job("early-low", slots(0), prio(50), submit(0))
			late := b.job("late-high", slots(0), prio(10), submit(5))
			s := b.snapshot()
			p := mustSchedule(t, s)
			if len(p.Starts) != 1 {
				t.Fatalf("want one start:\n%s", fmtPlan(s, &p))
			}
			if got := s.Jobs[p.Starts[0].Job].ID; got != tc.first {
				t.Fatalf("%s started, want %s", got, tc.first)
			}
			other := early
			if tc.first == "early-low" {
				other = late
			}
			pe, ok := pendingOf(&p, other)
			if !ok || (pe.Reason != ReasonZeroSlotFull && pe.Reason != ReasonBehind) {
				t.Fatalf("other job pending %+v", pe)
			}
		})
	}
}
