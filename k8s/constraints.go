package k8s

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// A pod's nodeSelector, required node affinity and tolerations restrict it
// to some of its pool's nodes. The core knows one restriction per job
// besides the pool: its GPU type, which must equal the node's
// (sched.Job.GPU, sched.Node.GPU). So the snapshot's GPU field does not
// carry the GPU label but a node class: the nodes of a pool are split
// into the fewest classes such that every job's eligible nodes are a
// union of classes (nodes in one class are accepted by exactly the same
// jobs), and a job is given the class its nodes form. A job whose nodes
// are the whole pool gets "" (any node); one whose nodes span several
// classes is aimed, for this pass, at the class where most of its pods fit
// (classify). Teaching the core a node set per job would be exact, but
// its placement indexes nodes by (pool, GPU, size) throughout; the class
// mapping leaves the core as it is.

// constraint is what restricts one pod to nodes, parsed once per pass.
type constraint struct {
	selector    labels.Selector // nodeSelector without the pool key; nil for none
	affinity    *nodeaffinity.NodeSelector
	tolerations []v1.Toleration
	pod         *v1.Pod
}

// constraintOf parses the pod's constraints. The pool label is left to the
// pool (a node without it is in the default pool, which a selector on the
// label would not match).
func (b *builder) constraintOf(p *v1.Pod) (*constraint, error) {
	c := &constraint{tolerations: p.Spec.Tolerations, pod: p}
	sel := maps.Clone(p.Spec.NodeSelector)
	delete(sel, b.cfg.PoolLabel)
	if len(sel) > 0 {
		c.selector = labels.SelectorFromSet(sel)
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ns, err := nodeaffinity.NewNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		if err != nil {
			return nil, fmt.Errorf("required node affinity: %w", err)
		}
		c.affinity = ns
	}
	return c, nil
}

// untolerated is the first NoSchedule or NoExecute taint of the node that
// neither the pod nor Config.ToleratedTaints tolerates.
func (b *builder) untolerated(c *constraint, n *v1.Node) (v1.Taint, bool) {
	filter := func(t *v1.Taint) bool {
		return (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute) &&
			!slices.Contains(b.cfg.ToleratedTaints, t.Key)
	}
	// Comparison operators in tolerations (Gt, Lt) are an alpha feature;
	// such a toleration tolerates nothing here.
	return corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, c.tolerations, filter, false)
}

// accepts reports whether the pod may run on the node.
func (b *builder) accepts(c *constraint, n *v1.Node) bool {
	if c.selector != nil && !c.selector.Matches(labels.Set(n.Labels)) {
		return false
	}
	if c.affinity != nil && !c.affinity.Match(n) {
		return false
	}
	_, bad := b.untolerated(c, n)
	return !bad
}

// eligible returns which snapshot nodes every pod of the group may use,
// all of them in the pool, or an error naming the constraint that leaves
// a pod no node, or no node large enough.
func (b *builder) eligible(pods []*v1.Pod, pool, slots int) ([]bool, error) {
	ok := make([]bool, len(b.kn))
	for i := range ok {
		ok[i] = b.pass.Snap.Nodes[i].Pool == pool
	}
	for _, p := range pods {
		mine, err := b.allowed(p, pool)
		if err != nil {
			return nil, err
		}
		for i := range ok {
			ok[i] = ok[i] && mine[i]
		}
	}
	largest, any := 0, false
	for i, n := range b.kn {
		if ok[i] {
			largest, any = max(largest, gpus(n)), true
		}
	}
	if !any {
		return nil, fmt.Errorf("gang %s: no usable node of pool %q is allowed to all its pods (their nodeSelectors, node affinities and tolerations differ)",
			jobKey(pods[0]), b.pass.Snap.Pools[pool].Name)
	}
	if slots > largest {
		return nil, fmt.Errorf("requests %d %s, more than the largest usable node it may use in pool %q has (%d); a pod cannot span nodes",
			slots, ResourceGPU, b.pass.Snap.Pools[pool].Name, largest)
	}
	return ok, nil
}

// allowed returns which nodes of the pool the pod may use, or an error
// naming what rules them all out. Pods made from one template share their
// constraints, so the answer is kept for the pass by the constraints'
// JSON: a long queue of alike pods matches the nodes once.
func (b *builder) allowed(p *v1.Pod, pool int) ([]bool, error) {
	sel := maps.Clone(p.Spec.NodeSelector)
	delete(sel, b.cfg.PoolLabel)
	var aff *v1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		aff = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	key, err := json.Marshal(struct {
		Pool int
		Sel  map[string]string
		Aff  *v1.NodeSelector
		Tol  []v1.Toleration
	}{pool, sel, aff, p.Spec.Tolerations})
	if err != nil {
		return nil, fmt.Errorf("pod %s: constraints: %w", podKey(p), err)
	}
	if got, ok := b.allowedBy[string(key)]; ok {
		return got.nodes, got.err
	}
	got := b.match(p, pool)
	b.allowedBy[string(key)] = got
	return got.nodes, got.err
}

// allowance is allowed's answer.
type allowance struct {
	nodes []bool
	err   error
}

func (b *builder) match(p *v1.Pod, pool int) allowance {
	c, err := b.constraintOf(p)
	if err != nil {
		return allowance{err: err}
	}
	nodes := make([]bool, len(b.kn))
	any := false
	for i, n := range b.kn {
		nodes[i] = b.pass.Snap.Nodes[i].Pool == pool && b.accepts(c, n)
		any = any || nodes[i]
	}
	if !any {
		return allowance{err: errors.New(b.noNode(c, pool))}
	}
	return allowance{nodes: nodes}
}

// noNode says why no node of the pool accepts the pod, constraint by
// constraint: how many nodes pass its nodeSelector, then its node
// affinity, then its tolerations, and an example of a taint in the way.
func (b *builder) noNode(c *constraint, pool int) string {
	name := b.pass.Snap.Pools[pool].Name
	var left []*v1.Node
	for i, n := range b.kn {
		if b.pass.Snap.Nodes[i].Pool == pool {
			left = append(left, n)
		}
	}
	if len(left) == 0 {
		return fmt.Sprintf("no usable node is in pool %q", name)
	}
	parts := []string{fmt.Sprintf("no usable node of pool %q fits: of %d", name, len(left))}
	if c.selector != nil {
		left = filter(left, func(n *v1.Node) bool { return c.selector.Matches(labels.Set(n.Labels)) })
		parts = append(parts, fmt.Sprintf("%d match nodeSelector %s", len(left), c.selector))
	}
	if c.affinity != nil {
		left = filter(left, c.affinity.Match)
		parts = append(parts, fmt.Sprintf("%d match its required node affinity", len(left)))
	}
	var taint v1.Taint
	var where string
	left = filter(left, func(n *v1.Node) bool {
		t, bad := b.untolerated(c, n)
		if bad && where == "" {
			taint, where = t, n.Name
		}
		return !bad
	})
	msg := strings.Join(parts, ", ")
	if where != "" {
		msg += fmt.Sprintf(", %d tolerate their taints (node %s has %s, not tolerated)", len(left), where, taint.ToString())
	}
	return msg
}

func filter(nodes []*v1.Node, keep func(*v1.Node) bool) []*v1.Node {
	var out []*v1.Node
	for _, n := range nodes {
		if keep(n) {
			out = append(out, n)
		}
	}
	return out
}
