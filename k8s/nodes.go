package k8s

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// defaultPodLimit caps zero-GPU pods on a node that does not report its
// allocatable pods (the kubelet's default maximum).
const defaultPodLimit = 110

// usable reports whether pods may be placed on the node: not cordoned and
// Ready (a node without conditions, as a freshly registered API object,
// counts as ready so that tests and static nodes work). Taints are matched
// against each pod's tolerations (constraints.go).
func usable(n *v1.Node) bool {
	if n.Spec.Unschedulable || n.DeletionTimestamp != nil {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady && c.Status != v1.ConditionTrue {
			return false
		}
	}
	return true
}

// gpus is the node's allocatable GPU count.
func gpus(n *v1.Node) int {
	q, ok := n.Status.Allocatable[ResourceGPU]
	if !ok {
		return 0
	}
	return int(q.Value())
}

// podLimit is how many pods the node takes, used as its zero-slot limit.
func podLimit(n *v1.Node) int {
	q, ok := n.Status.Allocatable[v1.ResourcePods]
	if !ok || q.Value() <= 0 {
		return defaultPodLimit
	}
	return int(q.Value())
}

// poolOf names the pool a node belongs to.
func poolOf(cfg *Config, labels map[string]string) string {
	if cfg.PoolLabel == "" {
		return DefaultPool
	}
	if p := labels[cfg.PoolLabel]; p != "" {
		return p
	}
	return DefaultPool
}

// sortedNodes returns the usable nodes ordered by name, so that the
// snapshot (and with it the plan) does not depend on informer order.
func sortedNodes(nodes []*v1.Node) []*v1.Node {
	out := make([]*v1.Node, 0, len(nodes))
	for _, n := range nodes {
		if usable(n) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}
