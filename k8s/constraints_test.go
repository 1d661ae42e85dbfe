package k8s

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

func labelled(kv ...string) func(*v1.Node) {
	return func(n *v1.Node) {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func tainted(key, value string, edit func(*v1.Node)) func(*v1.Node) {
	return func(n *v1.Node) {
		if edit != nil {
			edit(n)
		}
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: v1.TaintEffectNoSchedule})
	}
}

func selecting(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func tolerating(key string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: key, Operator: v1.TolerationOpExists})
	}
}

func affine(key string, values ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}}}}}}
	}
}

// placedOn runs the core over the cluster and returns where each pod was
// placed, and the reason of each pod that waits.
func placedOn(t *testing.T, nodes []*v1.Node, pods []*v1.Pod) (map[string]string, map[string]string) {
	t.Helper()
	cfg := DefaultConfig()
	pass := Build(&cfg, Cluster{Nodes: nodes, Pods: pods}, InFlight{}, time.Unix(1000, 0))
	var core sched.Scheduler
	act, err := Plan(&core, pass)
	if err != nil {
		t.Fatal(err)
	}
	on, why := map[string]string{}, map[string]string{}
	for _, b := range act.Binds {
		on[b.Pod.Name] = b.Node
	}
	for _, w := range act.Waits {
		why[w.Pod.Name] = w.Message
	}
	return on, why
}

func TestConstraintsPlace(t *testing.T) {
	nodes := []*v1.Node{
		node("a100-1", 4, labelled("nvidia.com/gpu.product", "a100", "zone", "z1")),
		node("h100-1", 4, tainted("dedicated", "train", labelled("nvidia.com/gpu.product", "h100", "zone", "z1"))),
		node("h100-2", 4, tainted("dedicated", "train", labelled("nvidia.com/gpu.product", "h100", "zone", "z2"))),
		node("l4-1", 4, labelled("nvidia.com/gpu.product", "l4", "zone", "z2")),
	}
	pods := []*v1.Pod{
		pod("plain", 4, nil),
		pod("zone2", 4, selecting("zone", "z2")),
		pod("h100", 4, func(p *v1.Pod) { selecting("nvidia.com/gpu.product", "h100")(p); tolerating("dedicated")(p) }),
		pod("h100-z2", 4, func(p *v1.Pod) {
			affine("zone", "z2")(p)
			tolerating("dedicated")(p)
			selecting("nvidia.com/gpu.product", "h100")(p)
		}),
		pod("intolerant", 4, selecting("nvidia.com/gpu.product", "h100")),
		pod("nowhere", 1, selecting("disk", "ssd")),
		pod("bad-affinity", 1, affine("zone", "z9")),
	}
	for i, p := range pods {
		p.CreationTimestamp.Time = time.Unix(int64(100+i), 0)
	}
	on, why := placedOn(t, nodes, pods)
	want := map[string]string{"plain": "a100-1", "zone2": "l4-1", "h100": "h100-1", "h100-z2": "h100-2"}
	for name, n := range want {
		if on[name] != n {
			t.Errorf("pod %s placed on %q, want %s (binds %v, waits %v)", name, on[name], n, on, why)
		}
	}
	for name, msg := range map[string]string{
		"intolerant":   "node h100-1 has dedicated=train:NoSchedule, not tolerated",
		"nowhere":      "0 match nodeSelector disk=ssd",
		"bad-affinity": "0 match its required node affinity",
	} {
		if !strings.Contains(why[name], msg) {
			t.Errorf("pod %s waits with %q, want it to say %q", name, why[name], msg)
		}
	}
}

// A pod allowed on several classes of nodes goes where it fits.
func TestConstraintsSpanClasses(t *testing.T) {
	nodes := []*v1.Node{
		node("a", 4, labelled("nvidia.com/gpu.product", "a100")),
		node("h", 4, labelled("nvidia.com/gpu.product", "h100")),
		node("l", 4, labelled("nvidia.com/gpu.product", "l4")),
	}
	pods := []*v1.Pod{
		pod("on-a", 4, selecting("nvidia.com/gpu.product", "a100")),
		pod("on-h", 2, selecting("nvidia.com/gpu.product", "h100")),
		pod("a-or-h", 2, affine("nvidia.com/gpu.product", "a100", "h100")),
		pod("any", 4, nil),
	}
	for i, p := range pods {
		p.CreationTimestamp.Time = time.Unix(int64(100+i), 0)
	}
	on, why := placedOn(t, nodes, pods)
	// a-or-h is aimed at the h100s, where 2 GPUs are left, not at the
	// full a100 listed first.
	if on["on-a"] != "a" || on["on-h"] != "h" || on["a-or-h"] != "h" || on["any"] != "l" {
		t.Errorf("binds %v, waits %v", on, why)
	}
}

func TestPreemptionPolicyNever(t *testing.T) {
	never := v1.PreemptNever
	prio := func(v int32, polite bool) func(*v1.Pod) {
		return func(p *v1.Pod) {
			p.Spec.Priority = &v
			if polite {
				p.Spec.PreemptionPolicy = &never
			}
		}
	}
	low := pod("low", 4, func(p *v1.Pod) { prio(0, false)(p); p.Spec.NodeName = "a" })
	for _, polite := range []bool{false, true} {
		high := pod("high", 4, prio(100, polite))
		cfg := DefaultConfig()
		pass := Build(&cfg, Cluster{Nodes: []*v1.Node{node("a", 4, nil)}, Pods: []*v1.Pod{low, high}}, InFlight{}, time.Unix(1000, 0))
		var core sched.Scheduler
		act, err := Plan(&core, pass)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(act.Evicts) > 0; got == polite {
			t.Errorf("preemptionPolicy Never %v: evicts %v", polite, act.Evicts)
		}
		if polite && (len(act.Waits) != 1 || !strings.Contains(act.Waits[0].Message, "preemptionPolicy is Never")) {
			t.Errorf("waits %+v, want the Never pod to say why", act.Waits)
		}
	}
}

// A pod bound before its node was tainted still holds its GPUs there, and
// the core takes the snapshot, whether or not other nodes allow the pod.
func TestConstraintsBoundOutsideClass(t *testing.T) {
	nodes := []*v1.Node{
		node("a", 4, tainted("maintenance", "", nil)),
		node("b", 4, nil),
	}
	on := func(n string) func(*v1.Pod) { return func(p *v1.Pod) { p.Spec.NodeName = n } }
	gangOf := func(p *v1.Pod) { p.Labels = map[string]string{LabelPodGroup: "g", LabelMinAvailable: "1"} }
	pods := []*v1.Pod{
		pod("old", 2, on("a")),
		pod("g-0", 2, func(p *v1.Pod) { gangOf(p); on("a")(p) }),
		pod("g-1", 2, gangOf),
		pod("new", 4, nil),
	}
	for i, p := range pods {
		p.CreationTimestamp.Time = time.Unix(int64(100+i), 0)
	}
	cfg := DefaultConfig()
	pass := Build(&cfg, Cluster{Nodes: nodes, Pods: pods}, InFlight{}, time.Unix(1000, 0))
	if len(pass.Snap.Allocs) != 2 {
		t.Errorf("%d allocations, want the 2 bound pods'", len(pass.Snap.Allocs))
	}
	var core sched.Scheduler
	act, err := Plan(&core, pass)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range act.Binds {
		if b.Node == "a" {
			t.Errorf("pod %s bound to the tainted node", b.Pod.Name)
		}
	}
}

// A gang whose pods allow disjoint nodes waits, saying so.
func TestConstraintsGangDisjoint(t *testing.T) {
	nodes := []*v1.Node{node("a", 4, labelled("zone", "z1")), node("b", 4, labelled("zone", "z2"))}
	member := func(zone string) func(*v1.Pod) {
		return func(p *v1.Pod) {
			selecting("zone", zone)(p)
			p.Labels = map[string]string{LabelPodGroup: "g"}
		}
	}
	_, why := placedOn(t, nodes, []*v1.Pod{pod("g-0", 4, member("z1")), pod("g-1", 4, member("z2"))})
	if !strings.Contains(why["g-0"], "is allowed to all its pods") {
		t.Errorf("waits %v, want the gang to say its pods share no node", why)
	}
}

// A class that is part of a GPU type gets a synthetic name, and a reason
// naming it lists its nodes.
func TestConstraintsClassNamedInReason(t *testing.T) {
	nodes := []*v1.Node{
		node("h1", 4, tainted("dedicated", "x", labelled("nvidia.com/gpu.product", "h100"))),
		node("h2", 4, labelled("nvidia.com/gpu.product", "h100")),
	}
	pods := []*v1.Pod{
		pod("fill", 4, func(p *v1.Pod) { p.Spec.NodeName = "h2" }),
		pod("x", 4, selecting("nvidia.com/gpu.product", "h100")),
	}
	_, why := placedOn(t, nodes, pods)
	if !strings.Contains(why["x"], "h100#") || !strings.Contains(why["x"], ": nodes h2, of those its nodeSelector") {
		t.Errorf("x waits with %q, want its class named and listed", why["x"])
	}
}
