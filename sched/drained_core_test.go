package sched

import (
	"slices"
	"strings"
	"testing"
)

// drainedAt marks a node drained (Node.Drained) with its own slots,
// as CapDrained leaves it; the fixture gives Slots, what its tasks hold.
func drainedAt(own int) nodeOpt {
	return func(nd *Node) { nd.Drained, nd.OwnSlots = true, own }
}

// drainWait is the start of the message of a job that waits for node p-1
// to be resumed.
const drainWait = "node p-1 is drained; it waits for a resume"

// TestDrainedPreemptionsFreeNothing: a task preempting on a drained node
// (the drivers skip a preemption there, and a task that does end leaves
// slots the node no longer has) frees nothing a waiting job can use: no
// job holds those slots as checkpointing, and one that needs them looks
// for a victim elsewhere; nor is a task with a part on a drained node a
// victim, since the drivers would not preempt it and its slots there
// would not come back.
func TestDrainedPreemptionsFreeNothing(t *testing.T) {
	type want struct {
		reason    Reason
		preempted []string // the victims' jobs
		says      string   // in the waiting job's message
	}
	for _, c := range []struct {
		name  string
		build func(b *cluster)
		want  want
	}{
		{"a preempting task on the only node, drained", func(b *cluster) {
			v := b.job("v", slots(4), waiting(0), preemptible(), prio(50))
			b.running(v, start(0), on("p-1", 4), preempting())
		}, want{ReasonNoNodes, nil, drainWait}},
		{"a preempting task on a drained node, a victim elsewhere", func(b *cluster) {
			b.nodes("p", 1, 4, "")
			v := b.job("v", slots(4), waiting(0), preemptible(), prio(50))
			b.running(v, start(0), on("p-1", 4), preempting())
			u := b.job("u", slots(4), waiting(0), preemptible(), prio(50))
			b.running(u, start(0), on("p-2", 4))
		}, want{ReasonCheckpointing, []string{"u"}, "checkpoint"}},
		{"the only victim on a drained node", func(b *cluster) {
			v := b.job("v", slots(4), waiting(0), preemptible(), prio(50))
			b.running(v, start(0), on("p-1", 4))
		}, want{ReasonNoNodes, nil, drainWait}},
		{"the cheaper victim on a drained node", func(b *cluster) {
			b.nodes("p", 1, 4, "")
			// v, on the drained node, loses less work than u.
			v := b.job("v", slots(4), waiting(0), preemptible(), prio(50))
			b.running(v, start(90), on("p-1", 4))
			u := b.job("u", slots(4), waiting(0), preemptible(), prio(50))
			b.running(u, start(0), on("p-2", 4))
		}, want{ReasonCheckpointing, []string{"u"}, "checkpoint"}},
		{"a gang victim with a part on a drained node", func(b *cluster) {
			b.nodes("p", 2, 4, "")
			v := b.job("v", slots(8), waiting(0), preemptible(), prio(50))
			b.running(v, start(90), on("p-1", 4), on("p-2", 4))
			u := b.job("u", slots(4), waiting(0), preemptible(), prio(50))
			b.running(u, start(0), on("p-3", 4))
		}, want{ReasonCheckpointing, []string{"u"}, "checkpoint"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).now(100).pool("p", PolicyPriority, withPreemption()).nodes("p", 1, 4, "", drainedAt(4))
			c.build(b)
			w := b.job("w", slots(4), prio(1), submit(100))
			s := b.snapshot()
			p := mustSchedule(t, s)
			if len(p.Starts) > 0 {
				t.Errorf("starts on a drained node\n%s", fmtPlan(s, &p))
			}
			var victims []string
			for _, a := range preempted(&p) {
				victims = append(victims, s.Jobs[s.Allocs[a].Job].ID)
			}
			if !slices.Equal(victims, c.want.preempted) {
				t.Errorf("preempted %v, want %v\n%s", victims, c.want.preempted, fmtPlan(s, &p))
			}
			pe := mustPending(t, s, &p, w, c.want.reason)
			if m := pe.Message(s); !strings.Contains(m, c.want.says) {
				t.Errorf("message %q does not say %q", m, c.want.says)
			}
		})
	}
}

// TestDrainedBlockedReason: a job that a drained node's running tasks
// keep from starting, with no other node that could hold it, waits for a
// resume, and is told so under every policy (EASY and conservative pools
// say it as a reservation with no start, TestDrainedNodeNotPromised; a
// serial pool's job waits for the running job, a fair-share job by its
// share); with another node that will free its slots it waits for
// capacity.
func TestDrainedBlockedReason(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		opts   []poolOpt
	}{
		{"fifo", PolicyFIFO, nil},
		{"priority", PolicyPriority, []poolOpt{withPreemption()}},
		{"priority backfill", PolicyPriority, []poolOpt{withBackfill()}},
		{"multifactor", PolicyMultifactor, []poolOpt{withMultifactor(Multifactor{Age: 1, MaxAge: 100})}},
	} {
		for _, other := range []bool{false, true} {
			name := c.name + ", only node drained"
			if other {
				name = c.name + ", another node frees later"
			}
			t.Run(name, func(t *testing.T) {
				b := newCluster(t).pool("p", c.policy, c.opts...).nodes("p", 1, 4, "", drainedAt(4))
				a := b.job("a", slots(4), waiting(0))
				b.running(a, start(0), on("p-1", 4))
				if other {
					b.nodes("p", 1, 4, "")
					o := b.job("o", slots(4), waiting(0))
					b.running(o, start(0), on("p-2", 4))
				}
				w := b.job("w", slots(4), submit(1))
				s := b.snapshot()
				p := mustSchedule(t, s)
				if other {
					mustPending(t, s, &p, w, ReasonNoCapacity)
					return
				}
				pe := mustPending(t, s, &p, w, ReasonNoNodes)
				if m := pe.Message(s); !strings.Contains(m, drainWait) {
					t.Errorf("message %q does not say %q", m, drainWait)
				}
			})
		}
	}
}

// TestDrainedTooBig: a job too big for its pool even with every drained
// node resumed (one kept with allow_infeasible) can never run as is, and
// its message says so rather than that it waits for a resume.
func TestDrainedTooBig(t *testing.T) {
	for _, c := range []struct {
		name    string
		held    int // what the drained node's task holds
		need    int
		drained bool // whether the message names the drain
	}{
		{"empty drained node, too big", 0, 8, false},
		{"busy drained node, too big", 4, 8, false},
		{"empty drained node, fits it resumed", 0, 4, true},
		{"busy drained node, fits it resumed", 4, 4, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, c.held, "", drainedAt(4))
			if c.held > 0 {
				a := b.job("a", slots(c.held), waiting(0))
				b.running(a, start(0), on("p-1", c.held))
			}
			w := b.job("w", slots(c.need), submit(1))
			s := b.snapshot()
			p := mustSchedule(t, s)
			pe := mustPending(t, s, &p, w, ReasonNoNodes)
			m := pe.Message(s)
			if got := strings.Contains(m, drainWait); got != c.drained {
				t.Errorf("message %q names the drain: %v, want %v", m, got, c.drained)
			}
			if !c.drained && !strings.Contains(m, "the most its nodes hold together is 4") {
				t.Errorf("message %q does not give the pool's 4 slots", m)
			}
			err := FeasibleResumed(s, &s.Jobs[w])
			if (err == nil) != c.drained {
				t.Errorf("FeasibleResumed: %v", err)
			}
			if names := s.DrainedNodes(&s.Jobs[w]); (len(names) > 0) != c.drained {
				t.Errorf("DrainedNodes: %v", names)
			}
		})
	}
}
