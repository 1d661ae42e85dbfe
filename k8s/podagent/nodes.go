package podagent

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// unavailable says why no new pod should go to the node, or "": it is
// cordoned or being deleted, its Ready condition is not True (a node
// without conditions, as a freshly made API object, counts as ready), or
// it has a NoSchedule or NoExecute taint outside Config.ToleratedTaints.
// The agent binds pods itself (spec.nodeName), so nothing in Kubernetes
// would keep them off such a node.
func (a *Agent) unavailable(n *v1.Node) string {
	if n.Spec.Unschedulable {
		return "cordoned"
	}
	if n.DeletionTimestamp != nil {
		return "being deleted"
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady && c.Status != v1.ConditionTrue {
			return fmt.Sprintf("Ready is %s", c.Status)
		}
	}
	for _, t := range n.Spec.Taints {
		if (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute) &&
			!slices.Contains(a.cfg.ToleratedTaints, t.Key) {
			return "tainted " + t.ToString()
		}
	}
	return ""
}
