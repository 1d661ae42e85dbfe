package podagent

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// The master places a job by its pool and GPU type only (jobfile derives
// the type from a pod_spec selecting nvidia.com/gpu.product), and the pod
// names its node, so no Kubernetes scheduler checks the pod_spec's other
// placement rules. The agent checks them before it makes the pod, and
// fails the attempt naming the rule and the node instead of running the
// pod where its pod_spec says it must not run. Matching is Kubernetes'
// own (component-helpers), as in package k8s.

// misfit says which placement rule of the pod the node breaks: its
// nodeSelector, its required node affinity, or a NoSchedule or NoExecute
// taint outside Config.ToleratedTaints that it does not tolerate; "" if
// none.
func (a *Agent) misfit(p *v1.Pod, n *v1.Node) string {
	keys := make([]string, 0, len(p.Spec.NodeSelector))
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := p.Spec.NodeSelector[k]
		got, ok := n.Labels[k]
		switch {
		case !ok:
			return fmt.Sprintf("its nodeSelector %s=%s does not match node %s, which has no %s label", k, want, n.Name, k)
		case got != want:
			return fmt.Sprintf("its nodeSelector %s=%s does not match node %s, whose %s is %s", k, want, n.Name, k, got)
		}
	}
	if aff := p.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		req := aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		ns, err := nodeaffinity.NewNodeSelector(req)
		if err != nil {
			return fmt.Sprintf("its required node affinity is invalid: %v", err)
		}
		if !ns.Match(n) {
			return fmt.Sprintf("its required node affinity (%s) does not match node %s", affinityText(req), n.Name)
		}
	}
	filter := func(t *v1.Taint) bool {
		return (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute) &&
			!slices.Contains(a.cfg.ToleratedTaints, t.Key)
	}
	if t, bad := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, p.Spec.Tolerations, filter, false); bad {
		return fmt.Sprintf("its tolerations do not tolerate node %s's taint %s", n.Name, t.ToString())
	}
	return ""
}

// affinityText writes node selector terms for a message, e.g.
// "nvidia.com/gpu.product In [A B] or zone NotIn [c]".
func affinityText(ns *v1.NodeSelector) string {
	terms := make([]string, 0, len(ns.NodeSelectorTerms))
	for _, t := range ns.NodeSelectorTerms {
		var reqs []string
		for _, e := range t.MatchExpressions {
			reqs = append(reqs, requirementText(e))
		}
		for _, e := range t.MatchFields {
			reqs = append(reqs, "field "+requirementText(e))
		}
		terms = append(terms, strings.Join(reqs, " and "))
	}
	return strings.Join(terms, " or ")
}

func requirementText(e v1.NodeSelectorRequirement) string {
	s := e.Key + " " + string(e.Operator)
	if len(e.Values) > 0 {
		s += " [" + strings.Join(e.Values, " ") + "]"
	}
	return s
}

// placementMisfit says why the pod must not be made on the node the
// master chose, for the attempt's error; "" if it may.
func (a *Agent) placementMisfit(p *v1.Pod, node string) string {
	n, err := a.nodes.Get(node)
	if err != nil {
		return fmt.Sprintf("node %s: %v", node, err)
	}
	if why := a.misfit(p, n); why != "" {
		// The master places by pool and resources.gpu only, which is
		// what the user can steer it with.
		return fmt.Sprintf("not started: %s (the master places a job by pool and resources.gpu only; steer it with them)", why)
	}
	return ""
}
