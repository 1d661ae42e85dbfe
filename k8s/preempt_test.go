package k8s_test

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/allot-sched/allot/k8s"
)

// priorities creates the test's PriorityClasses, <name>-low (10) and
// <name>-high (1000), and returns a pod edit that gives a pod one.
func (c *cluster) priorities() func(class string, labels map[string]string) func(*v1.Pod) {
	c.t.Helper()
	for class, value := range map[string]int32{"low": 10, "high": 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: c.name + "-" + class}, Value: value}
		if _, err := c.cs.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{}); err != nil {
			c.t.Fatalf("create priority class: %v", err)
		}
		c.t.Cleanup(func() {
			_ = c.cs.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
		})
	}
	return func(class string, labels map[string]string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Spec.PriorityClassName = c.name + "-" + class; p.Labels = labels }
	}
}

func terminating(p *v1.Pod) bool { return p != nil && p.DeletionTimestamp != nil }

// finish deletes a terminating pod at once, as the kubelet does once its
// containers have stopped; no kubelet runs in the tests.
func (c *cluster) finish(name string) {
	c.t.Helper()
	zero := int64(0)
	if err := c.cs.CoreV1().Pods(c.name).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		c.t.Fatalf("delete pod %s: %v", name, err)
	}
}

// TestPreemptionEvictsOnceAndWaitsForTheVictim: a high-priority pod evicts
// one of two low-priority pods with the grace period, waits while the
// victim terminates (its GPUs still held, nothing else evicted), and binds
// once the victim is gone.
func TestPreemptionEvictsOnceAndWaitsForTheVictim(t *testing.T) {
	c := newCluster(t)
	class := c.priorities()
	c.node("a", 4)
	c.podWith("low-a", 2, class("low", nil))
	c.podWith("low-b", 2, class("low", nil))
	c.start()
	c.waitFor("low pods bound", func(pods map[string]*v1.Pod) bool { return all(bound)(pods) })
	c.podWith("high", 2, class("high", nil))
	pods := c.waitFor("one victim terminating", func(pods map[string]*v1.Pod) bool {
		return (terminating(pods["low-a"]) || terminating(pods["low-b"])) && waitsWith("checkpoint")(pods["high"])
	})
	victim, other := "low-a", "low-b"
	if !terminating(pods[victim]) {
		victim, other = other, victim
	}
	if g := pods[victim].DeletionGracePeriodSeconds; g == nil || *g != 30 {
		t.Errorf("victim's grace period = %v, want 30s", g)
	}
	if !c.hasEventLike(victim, "Preempted", "preempted for "+c.name+"/high") {
		t.Errorf("no Preempted event on the victim %s", victim)
	}
	time.Sleep(time.Second) // several passes while the victim drains
	pods = c.pods()
	if bound(pods["high"]) || terminating(pods[other]) {
		t.Fatalf("while the victim drains: high bound=%v, %s terminating=%v; want neither", bound(pods["high"]), other, terminating(pods[other]))
	}
	c.finish(victim)
	pods = c.waitFor("high bound", func(pods map[string]*v1.Pod) bool { return bound(pods["high"]) })
	if terminating(pods[other]) || !bound(pods[other]) {
		t.Errorf("%s was disturbed: %+v", other, pods[other].ObjectMeta)
	}
}

func TestPreemption(t *testing.T) {
	cases := []struct {
		name   string
		nodes  []nodeSpec
		before []podSpec // low-priority pods, bound first
		high   podSpec
		until  func(map[string]*v1.Pod) bool
		stay   []string // pods that must still be bound at the end
		off    bool     // preemption off
	}{{
		name:   "with no grace the victim goes at once and the waiting pod binds",
		nodes:  []nodeSpec{{"a", 4}},
		before: []podSpec{{"low", 4, nil}},
		high:   podSpec{"high", 4, nil},
		until:  func(pods map[string]*v1.Pod) bool { return pods["low"] == nil && bound(pods["high"]) },
	}, {
		name:   "a gang left below min-available is evicted whole",
		nodes:  []nodeSpec{{"a", 2}, {"b", 2}},
		before: []podSpec{{"g-0", 2, gang("g", 2)}, {"g-1", 2, gang("g", 2)}},
		high:   podSpec{"high", 2, nil},
		until: func(pods map[string]*v1.Pod) bool {
			return pods["g-0"] == nil && pods["g-1"] == nil && bound(pods["high"])
		},
	}, {
		name:   "a pod labelled not preemptible is never a victim",
		nodes:  []nodeSpec{{"a", 4}},
		before: []podSpec{{"keep", 4, map[string]string{k8s.LabelPreemptible: "false"}}},
		high:   podSpec{"high", 4, nil},
		until:  func(pods map[string]*v1.Pod) bool { return waitsWith("needs 4 slots")(pods["high"]) },
		stay:   []string{"keep"},
	}, {
		name:   "with preemption off nothing is evicted",
		nodes:  []nodeSpec{{"a", 4}},
		before: []podSpec{{"keep", 4, nil}},
		high:   podSpec{"high", 4, nil},
		off:    true,
		until:  func(pods map[string]*v1.Pod) bool { return waitsWith("needs 4 slots")(pods["high"]) },
		stay:   []string{"keep"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			class := c.priorities()
			for _, n := range tc.nodes {
				c.node(n.name, n.gpus)
			}
			for _, p := range tc.before {
				c.podWith(p.name, p.gpus, class("low", p.labels))
			}
			c.start(func(cfg *k8s.Config) { cfg.PreemptionGrace, cfg.Pool.Preemption = 0, !tc.off })
			c.waitFor("low pods bound", all(bound))
			c.podWith(tc.high.name, tc.high.gpus, class("high", tc.high.labels))
			c.waitFor(tc.name, tc.until)
			time.Sleep(500 * time.Millisecond)
			pods := c.pods()
			for _, name := range tc.stay {
				if !bound(pods[name]) || terminating(pods[name]) {
					t.Errorf("%s was evicted", name)
				}
			}
		})
	}
}

// TestPriorityOrder: the pod of the higher PriorityClass value binds
// first, though it is younger (Kubernetes' larger-is-first order, where
// the core runs smaller numbers first).
func TestPriorityOrder(t *testing.T) {
	c := newCluster(t)
	class := c.priorities()
	c.node("a", 4)
	c.podWith("low", 4, class("low", nil))
	c.podWith("high", 4, class("high", nil))
	c.start()
	c.waitFor("high bound, low waiting", func(pods map[string]*v1.Pod) bool {
		return bound(pods["high"]) && waitsWith("needs 4 slots")(pods["low"])
	})
}

// hasEventLike reports whether the pod has an event with the reason and a
// message containing msg.
func (c *cluster) hasEventLike(pod, reason, msg string) bool {
	c.t.Helper()
	l, err := c.cs.CoreV1().Events(c.name).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("list events: %v", err)
	}
	for _, e := range l.Items {
		if e.InvolvedObject.Name == pod && e.Reason == reason && strings.Contains(e.Message, msg) {
			return true
		}
	}
	return false
}

// TestDisruptionBudgetHoldsAVictim: an eviction a PodDisruptionBudget
// refuses leaves the victim running and the waiting pod saying why; once
// the budget is gone, the victim is evicted and the pod binds.
func TestDisruptionBudgetHoldsAVictim(t *testing.T) {
	c := newCluster(t)
	class := c.priorities()
	c.node("a", 4)
	c.podWith("low", 4, class("low", map[string]string{"app": "low"}))
	c.start(func(cfg *k8s.Config) { cfg.PreemptionGrace = 0 })
	pods := c.waitFor("low bound", all(bound))
	// Play the kubelet: a pending pod is evicted whatever the budget says.
	low := pods["low"]
	low.Status.Phase = v1.PodRunning
	if _, err := c.cs.CoreV1().Pods(c.name).UpdateStatus(context.Background(), low, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("mark low running: %v", err)
	}
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "keep-low", Namespace: c.name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "low"}}}}
	if _, err := c.cs.PolicyV1().PodDisruptionBudgets(c.name).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create budget: %v", err)
	}
	c.podWith("high", 4, class("high", nil))
	c.waitFor("high waiting on the budget", func(pods map[string]*v1.Pod) bool {
		return waitsWith("waiting for pod "+c.name+"/low to be evicted: Cannot evict pod")(pods["high"]) && !terminating(pods["low"])
	})
	if err := c.cs.PolicyV1().PodDisruptionBudgets(c.name).Delete(context.Background(), "keep-low", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete budget: %v", err)
	}
	c.waitFor("high bound", func(pods map[string]*v1.Pod) bool { return bound(pods["high"]) && pods["low"] == nil })
}
