package k8s_test

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/k8s"
)

// TestLeaderElection runs two replicas against one API server: only the
// Lease holder binds and writes events; when it stops, the other takes
// over and schedules new pods, and no node is given more GPUs than it has.
func TestLeaderElection(t *testing.T) {
	c := newCluster(t)
	c.node("a", 4)
	c.node("b", 4)
	stops := map[string]func(){}
	for _, id := range []string{"one", "two"} {
		stops[id] = c.start(func(cfg *k8s.Config) { cfg.Leader.Identity = id })
	}
	c.pod("p1", 2, nil)
	c.pod("p2", 2, nil)
	c.pod("big", 8, nil) // never fits: the leader explains it
	c.waitFor("p1, p2 bound", func(pods map[string]*v1.Pod) bool {
		return bound(pods["p1"]) && bound(pods["p2"]) && waitsWith("more than the largest")(pods["big"])
	})
	leader := c.holder()
	if stops[leader] == nil {
		t.Fatalf("lease held by %q, not by a replica", leader)
	}
	if others := c.eventsNotBy(leader); len(others) > 0 {
		t.Errorf("the replica not leading wrote events: %v", others)
	}

	stops[leader]()
	c.pod("p3", 2, nil)
	c.pod("p4", 2, nil)
	c.pod("p5", 2, nil) // no room left: waits
	pods := c.waitFor("p3, p4 bound by the other replica", func(pods map[string]*v1.Pod) bool {
		return bound(pods["p3"]) && bound(pods["p4"]) && waitsWith("needs 2 slots")(pods["p5"])
	})
	if now := c.holder(); now == leader || stops[now] == nil {
		t.Errorf("lease held by %q after %q stopped", now, leader)
	}
	checkCapacity(t, c, pods, map[string]int{"a": 4, "b": 4})
	for _, name := range []string{"p3", "p4"} {
		if by := c.boundBy(name); by == leader || by == "" {
			t.Errorf("%s bound by %q, want the replica that took over", name, by)
		}
	}
}

// holder is the identity holding the test's Lease.
func (c *cluster) holder() string {
	c.t.Helper()
	l, err := c.cs.CoordinationV1().Leases(c.name).Get(context.Background(), c.name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatalf("get lease: %v", err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// eventsNotBy lists the reasons of events written by other replicas.
func (c *cluster) eventsNotBy(id string) []string {
	c.t.Helper()
	var out []string
	for _, e := range c.events() {
		if e.ReportingInstance != id {
			out = append(out, e.ReportingInstance+": "+e.Reason+" "+e.InvolvedObject.Name)
		}
	}
	return out
}

// boundBy is the replica whose Scheduled event names the pod.
func (c *cluster) boundBy(pod string) string {
	c.t.Helper()
	for _, e := range c.events() {
		if e.InvolvedObject.Name == pod && e.Reason == "Scheduled" {
			return e.ReportingInstance
		}
	}
	return ""
}

func (c *cluster) events() []v1.Event {
	c.t.Helper()
	l, err := c.cs.CoreV1().Events(c.name).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("list events: %v", err)
	}
	return l.Items
}

// TestTakeoverWhileVictimDrains: the leader evicts a victim and stops
// while it drains; the replica that takes over counts the terminating
// pod's GPUs as held, evicts nothing more, and binds the waiting pod once
// the victim is gone.
func TestTakeoverWhileVictimDrains(t *testing.T) {
	c := newCluster(t)
	class := c.priorities()
	c.node("a", 4)
	c.podWith("low-a", 2, class("low", nil))
	c.podWith("low-b", 2, class("low", nil))
	stops := map[string]func(){}
	for _, id := range []string{"one", "two"} {
		stops[id] = c.start(func(cfg *k8s.Config) { cfg.Leader.Identity = id })
	}
	c.waitFor("low pods bound", all(bound))
	c.podWith("high", 2, class("high", nil))
	pods := c.waitFor("a victim terminating", func(pods map[string]*v1.Pod) bool {
		return terminating(pods["low-a"]) || terminating(pods["low-b"])
	})
	victim, other := "low-a", "low-b"
	if !terminating(pods[victim]) {
		victim, other = other, victim
	}
	leader := c.holder()
	stops[leader]()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if h := c.holder(); h != "" && h != leader {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replica took over from %s", leader)
		}
	}
	time.Sleep(time.Second) // passes of the new leader
	pods = c.pods()
	if bound(pods["high"]) || terminating(pods[other]) {
		t.Fatalf("after the takeover: high bound=%v, %s terminating=%v; want neither", bound(pods["high"]), other, terminating(pods[other]))
	}
	c.finish(victim)
	c.waitFor("high bound", func(pods map[string]*v1.Pod) bool { return bound(pods["high"]) })
}
