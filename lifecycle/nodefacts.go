package lifecycle

import "github.com/allot-sched/allot/sched"

// SwitchLabel is the node label that names a node's network switch
// (sched.Node.Switch), from an agent, a node rule or a scenario's node:
// the cluster spec's spec.SwitchLabel, which a test keeps equal (this
// package reads no file format).
const SwitchLabel = "switch"

// DefaultZeroSlotLimit caps the zero-slot tasks on a node whose pool
// sets no cap (a pool without zero_slot_limit, a trace's nodes): the
// cluster spec's spec.DefaultZeroSlotLimit, which a test keeps equal.
const DefaultZeroSlotLimit = 100

// NodeFacts are what a driver knows of a node, resolved against its
// configuration (its pool's index, not its name), from which Node
// builds the node's snapshot entry. The master fills them from its node
// record, its agent's registration, the configuration's node rule and
// pool (master/snapshot.go's snapNodes, and its feasibility check's
// nodeFacts), the simulator from a scenario's
// node, a bare trace's cluster or a node reshaped (sim/scenario.go,
// sim/workload.go), the Kubernetes scheduler from a node object and the
// pods bound to it (k8s/snapshot.go); each keeps its own model of a
// node, and the node all give the core is made here, by one set of
// rules.
type NodeFacts struct {
	Name string
	Pool int
	// Slots are the node's own: its GPUs.
	Slots int
	// Held is what the snapshot's allocations hold there (the GPUs the
	// master's attempts in the snapshot hold, those of the pods bound to
	// a Kubernetes node): it may be more than Slots after a registration
	// with fewer GPUs, or a Kubernetes node's allocatable GPUs falling
	// (NodeSlots). The simulator builds nodes before any task holds
	// anything, and the Cluster floors its reshaped nodes by NodeSlots
	// once the allocations are in (reshape.go).
	Held int
	// Outside is what of its slots is held by work that has no
	// allocation in the snapshot, which the core would otherwise count
	// free and plan onto: the master's attempts it ended that an agent
	// still runs while they checkpoint (strays) and the attempts of jobs
	// it left out of the snapshot while they run (their project, pool,
	// QOS or license not configured). They are off its own slots
	// (NodeSlots), and not in Held. The simulator and the Kubernetes
	// scheduler have none: every task or pod they know holds its slots
	// by an allocation.
	Outside int
	// GPU is the type of its GPUs, "" for none.
	GPU string
	// Labels are the agent's or the scenario's; Rule's, those of the
	// configuration's node rule for it, go on top (NodeLabels; nil for
	// none). Node may return Labels itself: neither is changed.
	Labels, Rule map[string]string
	// ZeroSlotLimit is its pool's cap on zero-slot tasks, 0 for none (a
	// pool's zero_slot_limit: 0); a driver whose pool sets none passes
	// DefaultZeroSlotLimit.
	ZeroSlotLimit int
	// Drained says the node takes no start (a drain, its agent leaving):
	// it offers what its tasks hold (NodeSlots), which CapDrained makes
	// exact once the snapshot's allocations are in.
	Drained bool
}

// Node is the node's snapshot entry. Every field the core reads of a
// node is set here, so that the master, the simulator and the
// Kubernetes scheduler cannot compute one apart: its slots (NodeSlots),
// its labels (NodeLabels), its switch (the SwitchLabel label) and its
// cap on zero-slot tasks (ZeroSlotLimit).
// A drained node's Drained and OwnSlots are CapDrained's, which sees
// its allocations.
func (f *NodeFacts) Node() sched.Node {
	labels := NodeLabels(f.Labels, f.Rule)
	return sched.Node{
		Name:          f.Name,
		Pool:          f.Pool,
		Slots:         NodeSlots(f.Slots-f.Outside, f.Held, f.Drained),
		GPU:           f.GPU,
		Labels:        labels,
		Switch:        labels[SwitchLabel],
		ZeroSlotLimit: max(f.ZeroSlotLimit, 0),
	}
}

// NodeSlots is what a node offers a pass: its own slots less those held
// outside the snapshot (NodeFacts.Outside), or what the snapshot's
// allocations hold there when that is more, so that a node registered
// again or reshaped with fewer than its tasks hold is full, never
// over-committed; a drained node offers only what its allocations hold.
// own may be negative (more held outside than the node has): held, at
// least 0, is the floor.
func NodeSlots(own, held int, drained bool) int {
	if drained {
		return held
	}
	return max(own, held)
}

// NodeLabels are a node's own labels (its agent's, a scenario's) with
// those of the configuration's rule for it on top: own itself when the
// rule adds none, which saves a copy per node and pass.
func NodeLabels(own, rule map[string]string) map[string]string {
	if len(rule) == 0 {
		return own
	}
	out := make(map[string]string, len(own)+len(rule))
	for k, v := range own {
		out[k] = v
	}
	for k, v := range rule {
		out[k] = v
	}
	return out
}

// FairShareSlots is what a node adds to the capacity that fair-share
// usage is a share of (Ledgers.SetCapacity): its own slots, not what its
// tasks hold, so that a node registered again or reshaped with fewer is
// no bigger for fair share, when its pool's policy is multifactor (the
// only pools whose jobs charge accounts) and it counts there
// (InFairShareCapacity: down and drained too, deleted not); nothing
// otherwise.
func FairShareSlots(policy sched.Policy, own int, deleted bool) int {
	if policy != sched.PolicyMultifactor || !InFairShareCapacity(deleted) {
		return 0
	}
	return own
}
