package k8s_test

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/k8s/k8stest"
)

// labelledNode creates a node of the test's pool with more labels and,
// when taint is set, a NoSchedule taint KEY=VALUE.
func (c *cluster) labelledNode(name string, gpus int, labels map[string]string, taint *v1.Taint) {
	c.t.Helper()
	labels[poolLabel] = c.name
	k8stest.AddNode(c.t, c.cs, c.name+"-"+name, gpus, labels)
	if taint == nil {
		return
	}
	ctx := context.Background()
	n, err := c.cs.CoreV1().Nodes().Get(ctx, c.name+"-"+name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	n.Spec.Taints = append(n.Spec.Taints, *taint)
	if _, err := c.cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		c.t.Fatalf("taint node %s: %v", name, err)
	}
}

// TestPodConstraintsOnAPIServer: pods go only where their nodeSelector,
// required node affinity and tolerations allow, and a pod no node allows
// says which constraint rules the nodes out.
func TestPodConstraintsOnAPIServer(t *testing.T) {
	c := newCluster(t)
	gpu := "nvidia.com/gpu.product"
	dedicated := &v1.Taint{Key: "dedicated", Value: "train", Effect: v1.TaintEffectNoSchedule}
	c.labelledNode("a100", 4, map[string]string{gpu: "a100", "zone": "z1"}, nil)
	c.labelledNode("h100", 4, map[string]string{gpu: "h100", "zone": "z1"}, dedicated)
	c.labelledNode("l4", 4, map[string]string{gpu: "l4", "zone": "z2"}, nil)
	tolerate := []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "train", Effect: v1.TaintEffectNoSchedule}}
	zoneIn := func(zones ...string) *v1.Affinity {
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: zones}}}}}}}
	}
	c.podWith("train", 4, func(p *v1.Pod) { p.Spec.NodeSelector[gpu] = "h100"; p.Spec.Tolerations = tolerate })
	c.podWith("z2", 2, func(p *v1.Pod) { p.Spec.Affinity = zoneIn("z2") })
	c.podWith("untolerated", 1, func(p *v1.Pod) { p.Spec.NodeSelector[gpu] = "h100" })
	c.podWith("nowhere", 1, func(p *v1.Pod) { p.Spec.NodeSelector["disk"] = "ssd" })
	c.podWith("z9", 1, func(p *v1.Pod) { p.Spec.Affinity = zoneIn("z9") })
	c.start()
	untolerated := "node " + c.name + "-h100 has dedicated=train:NoSchedule, not tolerated"
	pods := c.waitFor("constrained pods placed or explained", func(pods map[string]*v1.Pod) bool {
		return bound(pods["train"]) && bound(pods["z2"]) &&
			waitsWith(untolerated)(pods["untolerated"]) &&
			waitsWith("0 match nodeSelector disk=ssd")(pods["nowhere"]) &&
			waitsWith("0 match its required node affinity")(pods["z9"])
	})
	for name, want := range map[string]string{"train": "h100", "z2": "l4"} {
		if got := pods[name].Spec.NodeName; got != c.name+"-"+want {
			t.Errorf("pod %s bound to %s, want %s", name, got, c.name+"-"+want)
		}
	}
	if !c.hasEvent("untolerated", "FailedScheduling", waiting(pods["untolerated"])) {
		t.Errorf("no FailedScheduling event with %q", waiting(pods["untolerated"]))
	}
	// A plain pod never lands on the tainted node, though it has room.
	c.podWith("plain", 4, func(*v1.Pod) {})
	pods = c.waitFor("plain placed", func(pods map[string]*v1.Pod) bool { return bound(pods["plain"]) })
	if got := pods["plain"].Spec.NodeName; got != c.name+"-a100" {
		t.Errorf("plain bound to %s, want %s-a100", got, c.name)
	}
}

// TestPreemptionPolicyNeverOnAPIServer: a high-priority pod whose
// PriorityClass says preemptionPolicy: Never waits for free GPUs instead
// of evicting, and binds once they are free.
func TestPreemptionPolicyNeverOnAPIServer(t *testing.T) {
	c := newCluster(t)
	class := c.priorities()
	never := v1.PreemptNever
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: c.name + "-polite"}, Value: 1000, PreemptionPolicy: &never}
	if _, err := c.cs.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create priority class: %v", err)
	}
	t.Cleanup(func() {
		_ = c.cs.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
	})
	c.node("a", 4)
	c.podWith("low", 4, class("low", nil))
	c.start()
	c.waitFor("low bound", all(bound))
	c.podWith("polite", 4, func(p *v1.Pod) { p.Spec.PriorityClassName = pc.Name })
	c.waitFor("polite waits, saying why", func(pods map[string]*v1.Pod) bool {
		return waitsWith("preemptionPolicy is Never")(pods["polite"])
	})
	time.Sleep(time.Second) // several passes
	pods := c.pods()
	if terminating(pods["low"]) {
		t.Fatal("low was evicted for a pod whose preemptionPolicy is Never")
	}
	c.finish("low")
	pods = c.waitFor("polite bound", func(pods map[string]*v1.Pod) bool { return bound(pods["polite"]) })
	if !strings.HasSuffix(pods["polite"].Spec.NodeName, "-a") {
		t.Errorf("polite bound to %s", pods["polite"].Spec.NodeName)
	}
}
