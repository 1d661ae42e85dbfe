package sched

import (
	"slices"
	"testing"
)

func onSwitch(name string) nodeOpt { return func(n *Node) { n.Switch = name } }
func topology(t Topology) jobOpt   { return func(_ *cluster, j *Job) { j.Topology = t } }

// switchCluster has 8-GPU nodes interleaved over switches so that a
// placement ignoring switches would mix them: a1 b1 a2 b2 b3 c1.
// Switch a has 2 nodes, b has 3 and c has 1.
func switchCluster(t *testing.T) *cluster {
	c := newCluster(t).pool("gpu", PolicyPriority)
	for _, n := range []struct{ name, sw string }{
		{"a1", "a"}, {"b1", "b"}, {"a2", "a"}, {"b2", "b"}, {"b3", "b"}, {"c1", "c"},
	} {
		c.node("gpu", n.name, 8, "h100", onSwitch(n.sw))
	}
	return c
}

func TestTopology(t *testing.T) {
	cases := []struct {
		name  string
		build func(c *cluster) int // adds the gang, returns its index
		// want is the gang's nodes, or nil when it must wait with reason.
		want   []string
		reason Reason
	}{
		{"a 16-GPU gang takes the switch that fits it most tightly",
			func(c *cluster) int { return c.job("gang", slots(16)) },
			[]string{"a1", "a2"}, 0},
		{"a 24-GPU gang fits only under switch b",
			func(c *cluster) int { return c.job("gang", slots(24)) },
			[]string{"b1", "b2", "b3"}, 0},
		{"a remainder goes on a partly used node of the same switch",
			func(c *cluster) int {
				c.fill(c.job("small", slots(4), waiting(0)), "b2", 1, 0)
				return c.job("gang", slots(20))
			},
			[]string{"b1", "b3", "b2"}, 0},
		{"preferred topology spans switches when no switch has room",
			func(c *cluster) int {
				c.fill(c.job("busy", slots(8), waiting(0)), "b1", 1, 0)
				return c.job("gang", slots(24))
			},
			[]string{"a1", "a2", "b2"}, 0},
		{"required topology waits for one switch",
			func(c *cluster) int {
				c.fill(c.job("busy", slots(8), waiting(0)), "b1", 1, 0)
				return c.job("gang", slots(24), topology(TopologyRequired))
			},
			nil, ReasonTopology},
		{"a required gang larger than every switch can never run",
			func(c *cluster) int { return c.job("gang", slots(32), topology(TopologyRequired)) },
			nil, ReasonNoNodes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := switchCluster(t)
			j := tc.build(c)
			s := c.snapshot()
			plan := mustSchedule(t, s)
			st := startsOf(&plan, j)
			if tc.want == nil {
				if len(st) != 0 {
					t.Fatalf("gang started on %v, want it to wait", st)
				}
				i := slices.IndexFunc(plan.Pending, func(p Pending) bool { return p.Job == j })
				if i < 0 || plan.Pending[i].Reason != tc.reason {
					t.Fatalf("pending %+v, want reason %v", plan.Pending, tc.reason)
				}
				if msg := plan.Pending[i].Message(s); msg == "" {
					t.Fatal("empty message")
				}
				return
			}
			if len(st) != 1 {
				t.Fatalf("%d starts, want 1 (pending %+v)", len(st), plan.Pending)
			}
			var got []string
			for _, ns := range st[0].Nodes {
				got = append(got, s.Nodes[ns.Node].Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("gang placed on %v, want %v", got, tc.want)
			}
		})
	}
}
