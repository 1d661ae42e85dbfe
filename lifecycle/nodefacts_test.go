package lifecycle

import (
	"maps"
	"reflect"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
)

// TestNodeFactsNode: every field of the node comes from the facts, those
// the rules make by them (NodeSlots, NodeLabels, the switch label,
// ZeroSlotLimit), the rest as they are.
func TestNodeFactsNode(t *testing.T) {
	agent := map[string]string{SwitchLabel: "s1", "rack": "r1"}
	base := NodeFacts{Name: "n1", Pool: 2, Slots: 8, GPU: "h100", Labels: agent, ZeroSlotLimit: 4}
	want := sched.Node{Name: "n1", Pool: 2, Slots: 8, GPU: "h100", Labels: agent, Switch: "s1", ZeroSlotLimit: 4}
	for _, c := range []struct {
		name string
		f    func(*NodeFacts)
		w    func(*sched.Node)
	}{
		{"as given", nil, nil},
		{"some held", func(f *NodeFacts) { f.Held = 3 }, nil},
		{"all held", func(f *NodeFacts) { f.Held = 8 }, nil},
		// Registered again with fewer GPUs than its tasks hold: full.
		{"more held than own", func(f *NodeFacts) { f.Held = 11 }, func(n *sched.Node) { n.Slots = 11 }},
		{"drained offers what is held", func(f *NodeFacts) { f.Held, f.Drained = 3, true }, func(n *sched.Node) { n.Slots = 3 }},
		{"drained holding nothing", func(f *NodeFacts) { f.Drained = true }, func(n *sched.Node) { n.Slots = 0 }},
		{"drained holding more than own", func(f *NodeFacts) { f.Held, f.Drained = 11, true }, func(n *sched.Node) { n.Slots = 11 }},
		// Held outside the snapshot (the master's strays and jobs left
		// out): off its own slots, not below what its allocations hold.
		{"some held outside", func(f *NodeFacts) { f.Outside = 3 }, func(n *sched.Node) { n.Slots = 5 }},
		{"held outside and in", func(f *NodeFacts) { f.Held, f.Outside = 2, 3 }, func(n *sched.Node) { n.Slots = 5 }},
		{"all held outside", func(f *NodeFacts) { f.Outside = 8 }, func(n *sched.Node) { n.Slots = 0 }},
		{"held outside, more held than the rest", func(f *NodeFacts) { f.Held, f.Outside = 6, 4 },
			func(n *sched.Node) { n.Slots = 6 }},
		{"more held outside than own", func(f *NodeFacts) { f.Outside = 10 }, func(n *sched.Node) { n.Slots = 0 }},
		{"drained, held outside", func(f *NodeFacts) { f.Held, f.Outside, f.Drained = 3, 2, true },
			func(n *sched.Node) { n.Slots = 3 }},
		{"no GPUs", func(f *NodeFacts) { f.Slots, f.GPU = 0, "" }, func(n *sched.Node) { n.Slots, n.GPU = 0, "" }},
		{"no zero-slot tasks", func(f *NodeFacts) { f.ZeroSlotLimit = 0 }, func(n *sched.Node) { n.ZeroSlotLimit = 0 }},
		{"negative zero-slot limit", func(f *NodeFacts) { f.ZeroSlotLimit = -1 }, func(n *sched.Node) { n.ZeroSlotLimit = 0 }},
		{"no labels", func(f *NodeFacts) { f.Labels = nil }, func(n *sched.Node) { n.Labels, n.Switch = nil, "" }},
		{"no switch label", func(f *NodeFacts) { f.Labels = map[string]string{"rack": "r1"} },
			func(n *sched.Node) { n.Labels, n.Switch = map[string]string{"rack": "r1"}, "" }},
		{"empty rule", func(f *NodeFacts) { f.Rule = map[string]string{} }, nil},
		{"rule on top", func(f *NodeFacts) { f.Rule = map[string]string{SwitchLabel: "s2", "zone": "z"} },
			func(n *sched.Node) {
				n.Labels, n.Switch = map[string]string{SwitchLabel: "s2", "rack": "r1", "zone": "z"}, "s2"
			}},
		{"rule alone", func(f *NodeFacts) { f.Labels, f.Rule = nil, map[string]string{SwitchLabel: "s3"} },
			func(n *sched.Node) { n.Labels, n.Switch = map[string]string{SwitchLabel: "s3"}, "s3" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, w := base, want
			if c.f != nil {
				c.f(&f)
			}
			if c.w != nil {
				c.w(&w)
			}
			before := maps.Clone(f.Labels)
			got := f.Node()
			if !reflect.DeepEqual(got, w) {
				t.Errorf("Node() = %+v, want %+v", got, w)
			}
			if !maps.Equal(f.Labels, before) {
				t.Errorf("the agent's labels changed: %v, were %v", f.Labels, before)
			}
			// Without a rule the node shares the agent's labels: no copy
			// per node and pass.
			if len(f.Rule) == 0 && f.Labels != nil && reflect.ValueOf(got.Labels).UnsafePointer() != reflect.ValueOf(f.Labels).UnsafePointer() {
				t.Errorf("Node() copied the labels without a rule")
			}
		})
	}
}

// TestSwitchLabelIsSpecs: the label NodeFacts reads the switch from is
// the one the file formats and agents name it by.
func TestSwitchLabelIsSpecs(t *testing.T) {
	if SwitchLabel != spec.SwitchLabel {
		t.Errorf("SwitchLabel = %q, spec.SwitchLabel = %q", SwitchLabel, spec.SwitchLabel)
	}
	if DefaultZeroSlotLimit != spec.DefaultZeroSlotLimit {
		t.Errorf("DefaultZeroSlotLimit = %d, spec.DefaultZeroSlotLimit = %d", DefaultZeroSlotLimit, spec.DefaultZeroSlotLimit)
	}
}

// TestFairShareSlots: a node of a multifactor pool counts its own slots,
// whatever its tasks hold, down and drained too (its caller does not
// say), deleted not; a node of another pool counts nothing.
func TestFairShareSlots(t *testing.T) {
	for _, c := range []struct {
		name    string
		policy  sched.Policy
		own     int
		deleted bool
		want    int
	}{
		{"multifactor", sched.PolicyMultifactor, 8, false, 8},
		{"multifactor deleted", sched.PolicyMultifactor, 8, true, 0},
		{"multifactor no GPUs", sched.PolicyMultifactor, 0, false, 0},
		{"priority", sched.PolicyPriority, 8, false, 0},
		{"quota", sched.PolicyQuota, 8, false, 0},
		{"fifo", sched.PolicyFIFO, 8, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FairShareSlots(c.policy, c.own, c.deleted); got != c.want {
				t.Errorf("FairShareSlots(%v, %d, %v) = %d, want %d", c.policy, c.own, c.deleted, got, c.want)
			}
		})
	}
}
