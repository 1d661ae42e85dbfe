package k8s

import (
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

func node(name string, gpus int, edit func(*v1.Node)) *v1.Node {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{
		Allocatable: v1.ResourceList{ResourceGPU: *resource.NewQuantity(int64(gpus), resource.DecimalSI)}}}
	if edit != nil {
		edit(n)
	}
	return n
}

func pod(name string, gpus int, edit func(*v1.Pod)) *v1.Pod {
	q := *resource.NewQuantity(int64(gpus), resource.DecimalSI)
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name)},
		Spec: v1.PodSpec{SchedulerName: "allot", Containers: []v1.Container{{Name: "c",
			Resources: v1.ResourceRequirements{Limits: v1.ResourceList{ResourceGPU: q}}}}}}
	if edit != nil {
		edit(p)
	}
	return p
}

func TestBuild(t *testing.T) {
	cordon := func(n *v1.Node) { n.Spec.Unschedulable = true }
	taint := func(key string) func(*v1.Node) {
		return func(n *v1.Node) { n.Spec.Taints = []v1.Taint{{Key: key, Effect: v1.TaintEffectNoSchedule}} }
	}
	notReady := func(n *v1.Node) {
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
	}
	on := func(node string) func(*v1.Pod) { return func(p *v1.Pod) { p.Spec.NodeName = node } }
	foreign := func(p *v1.Pod) { p.Spec.SchedulerName = "default-scheduler"; p.Spec.NodeName = "a" }
	inGang := func(min string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Labels = map[string]string{LabelPodGroup: "g", LabelMinAvailable: min} }
	}
	tests := []struct {
		name   string
		nodes  []*v1.Node
		pods   []*v1.Pod
		nodesN int    // nodes in the snapshot
		jobs   []int  // Waiting of each job
		allocs int    // running allocations
		wait   string // a substring of the first pre-core wait, if any
		slots  []int  // the slots of each node, when set
		sw     string // the switch of the first node, when set
	}{
		{name: "cordoned and not-ready nodes are left out, tainted ones kept for pods that tolerate them",
			nodes:  []*v1.Node{node("a", 4, nil), node("b", 4, cordon), node("c", 4, taint("dedicated")), node("d", 4, notReady)},
			nodesN: 2},
		{name: "the GPU taint is tolerated",
			nodes: []*v1.Node{node("a", 4, taint(string(ResourceGPU)))}, nodesN: 1},
		{name: "a pod bound by another scheduler holds its GPUs",
			nodes: []*v1.Node{node("a", 4, nil)}, pods: []*v1.Pod{pod("x", 2, foreign), pod("y", 2, nil)},
			nodesN: 1, jobs: []int{0, 1}, allocs: 1},
		{name: "a gang is one job with one waiting task per unbound pod",
			nodes:  []*v1.Node{node("a", 8, nil)},
			pods:   []*v1.Pod{pod("g0", 2, inGang("3")), pod("g1", 2, inGang("3")), pod("g2", 2, func(p *v1.Pod) { inGang("3")(p); on("a")(p) })},
			nodesN: 1, jobs: []int{2}, allocs: 1},
		{name: "a mixed-size gang waits",
			nodes: []*v1.Node{node("a", 8, nil)}, pods: []*v1.Pod{pod("g0", 2, inGang("2")), pod("g1", 4, inGang("2"))},
			nodesN: 1, wait: "one size per gang"},
		{name: "a malformed min-available waits",
			nodes: []*v1.Node{node("a", 8, nil)}, pods: []*v1.Pod{pod("g0", 2, inGang("two"))},
			nodesN: 1, wait: "want a whole number"},
		{name: "a pod larger than every node waits",
			nodes: []*v1.Node{node("a", 4, nil), node("b", 4, nil)}, pods: []*v1.Pod{pod("big", 8, nil)},
			nodesN: 2, wait: "a pod cannot span nodes"},
		{name: "a node whose pods hold more than its allocatable GPUs is full, not over-committed",
			nodes:  []*v1.Node{node("a", 1, nil), node("b", 4, nil)},
			pods:   []*v1.Pod{pod("x", 2, foreign), pod("y", 2, on("a")), pod("z", 1, nil)},
			nodesN: 2, jobs: []int{0, 0, 1}, allocs: 2, slots: []int{4, 4}},
		{name: "the switch label names a node's switch",
			nodes:  []*v1.Node{node("a", 4, func(n *v1.Node) { n.Labels = map[string]string{lifecycle.SwitchLabel: "s1"} })},
			nodesN: 1, slots: []int{4}, sw: "s1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			p := Build(&cfg, Cluster{Nodes: tc.nodes, Pods: tc.pods}, InFlight{}, time.Unix(1000, 0))
			if got := len(p.Snap.Nodes); got != tc.nodesN {
				t.Errorf("%d nodes in the snapshot, want %d", got, tc.nodesN)
			}
			var waiting []int
			for _, j := range p.Snap.Jobs {
				waiting = append(waiting, j.Waiting)
			}
			if !slices.Equal(waiting, tc.jobs) {
				t.Errorf("jobs waiting %v, want %v", waiting, tc.jobs)
			}
			if got := len(p.Snap.Allocs); got != tc.allocs {
				t.Errorf("%d allocations, want %d", got, tc.allocs)
			}
			var slots []int
			for _, n := range p.Snap.Nodes {
				slots = append(slots, n.Slots)
			}
			if tc.slots != nil && !slices.Equal(slots, tc.slots) {
				t.Errorf("node slots %v, want %v", slots, tc.slots)
			}
			if tc.sw != "" && p.Snap.Nodes[0].Switch != tc.sw {
				t.Errorf("switch %q, want %q", p.Snap.Nodes[0].Switch, tc.sw)
			}
			if tc.wait != "" && (len(p.Waits) == 0 || !strings.Contains(p.Waits[0].Message, tc.wait)) {
				t.Errorf("waits %+v, want one containing %q", p.Waits, tc.wait)
			}
			if _, err := sched.Schedule(&p.Snap); err != nil {
				t.Errorf("the core refused the snapshot: %v", err)
			}
		})
	}
}
