package k8s_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

type podSpec struct {
	name   string
	gpus   int
	labels map[string]string
}

type nodeSpec struct {
	name string
	gpus int
}

// TestScheduleOnAPIServer runs the scheduler against a real kube-apiserver
// with fake nodes and checks bindings and the conditions of waiting pods.
func TestScheduleOnAPIServer(t *testing.T) {
	cases := []struct {
		name  string
		nodes []nodeSpec
		pods  []podSpec
		// until is what the test waits for; check then looks closer.
		until func(map[string]*v1.Pod) bool
		check func(*testing.T, *cluster, map[string]*v1.Pod)
	}{{
		name:  "pods bind to nodes with enough GPUs",
		nodes: []nodeSpec{{"big", 8}, {"small", 2}},
		pods:  []podSpec{{"p6", 6, nil}, {"p2a", 2, nil}, {"p2b", 2, nil}},
		until: all(bound),
		check: func(t *testing.T, c *cluster, pods map[string]*v1.Pod) {
			if got := pods["p6"].Spec.NodeName; got != c.name+"-big" {
				t.Errorf("p6 (6 GPUs) bound to %q, want the 8-GPU node", got)
			}
			checkCapacity(t, c, pods, map[string]int{"big": 8, "small": 2})
		},
	}, {
		name:  "a gang binds all its pods",
		nodes: []nodeSpec{{"a", 4}, {"b", 4}},
		pods:  []podSpec{{"g-0", 4, gang("g", 2)}, {"g-1", 4, gang("g", 2)}},
		until: all(bound),
		check: func(t *testing.T, c *cluster, pods map[string]*v1.Pod) {
			checkCapacity(t, c, pods, map[string]int{"a": 4, "b": 4})
		},
	}, {
		name:  "a gang that cannot fit binds none and leaves its GPUs to others",
		nodes: []nodeSpec{{"a", 4}, {"b", 4}},
		pods: []podSpec{{"g-0", 4, gang("g", 3)}, {"g-1", 4, gang("g", 3)}, {"g-2", 4, gang("g", 3)},
			{"solo", 4, nil}},
		until: func(pods map[string]*v1.Pod) bool {
			return bound(pods["solo"]) && waitsWith("min-available 3")(pods["g-0"]) &&
				waitsWith("min-available 3")(pods["g-1"]) && waitsWith("min-available 3")(pods["g-2"])
		},
		check: func(t *testing.T, c *cluster, _ map[string]*v1.Pod) {
			time.Sleep(time.Second) // several more passes
			for name, p := range c.pods() {
				if strings.HasPrefix(name, "g-") && bound(p) {
					t.Errorf("gang pod %s bound to %s though the gang cannot fit", name, p.Spec.NodeName)
				}
			}
		},
	}, {
		name:  "a gang short of min-available pods waits for them",
		nodes: []nodeSpec{{"a", 4}},
		pods:  []podSpec{{"g-0", 1, gang("g", 2)}},
		until: all(waitsWith("has 1 of the 2 pods it needs")),
	}, {
		name:  "an oversized pod and a pod without room wait with Allot's reason",
		nodes: []nodeSpec{{"a", 4}},
		pods:  []podSpec{{"huge", 8, nil}, {"fill", 4, nil}, {"late", 4, nil}},
		until: func(pods map[string]*v1.Pod) bool {
			return bound(pods["fill"]) && waitsWith("more than the largest usable node")(pods["huge"]) &&
				waitsWith("needs 4 slots per task")(pods["late"])
		},
		check: func(t *testing.T, c *cluster, pods map[string]*v1.Pod) {
			for _, name := range []string{"huge", "late"} {
				if m := waiting(pods[name]); !strings.HasPrefix(m, "allot: ") {
					t.Errorf("%s: condition message %q does not start with allot:", name, m)
				}
				if !c.hasEvent(name, "FailedScheduling", waiting(pods[name])) {
					t.Errorf("%s: no FailedScheduling event with the condition's message", name)
				}
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			for _, n := range tc.nodes {
				c.node(n.name, n.gpus)
			}
			for _, p := range tc.pods {
				c.pod(p.name, p.gpus, p.labels)
			}
			c.start()
			pods := c.waitFor(tc.name, tc.until)
			if tc.check != nil {
				tc.check(t, c, pods)
			}
		})
	}
}

func bound(p *v1.Pod) bool { return p != nil && p.Spec.NodeName != "" }

func waitsWith(s string) func(*v1.Pod) bool {
	return func(p *v1.Pod) bool { return p != nil && !bound(p) && strings.Contains(waiting(p), s) }
}

func all(ok func(*v1.Pod) bool) func(map[string]*v1.Pod) bool {
	return func(pods map[string]*v1.Pod) bool {
		for _, p := range pods {
			if !ok(p) {
				return false
			}
		}
		return len(pods) > 0
	}
}

// checkCapacity fails when the pods bound to a node request more GPUs
// than it has.
func checkCapacity(t *testing.T, c *cluster, pods map[string]*v1.Pod, gpus map[string]int) {
	t.Helper()
	used := map[string]int{}
	for _, p := range pods {
		if !bound(p) {
			continue
		}
		q := p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"]
		used[strings.TrimPrefix(p.Spec.NodeName, c.name+"-")] += int(q.Value())
	}
	for node, n := range used {
		if n > gpus[node] {
			t.Errorf("node %s: %d GPUs bound, has %d", node, n, gpus[node])
		}
	}
}

// TestRestartRebuildsFromAPIServer stops the scheduler and starts a new
// one: the new one learns what is bound from the API server, so it binds
// nothing onto GPUs a pod already holds and never binds a pod twice.
func TestRestartRebuildsFromAPIServer(t *testing.T) {
	c := newCluster(t)
	c.node("a", 4)
	c.pod("first", 4, nil)
	stop := c.start()
	c.waitFor("first bound", func(pods map[string]*v1.Pod) bool { return bound(pods["first"]) })
	stop()

	c.pod("second", 4, nil)
	c.start()
	pods := c.waitFor("second to wait", func(pods map[string]*v1.Pod) bool {
		return waitsWith("needs 4 slots per task, 0 are free")(pods["second"])
	})
	if got, want := pods["first"].Spec.NodeName, c.name+"-a"; got != want {
		t.Errorf("first moved to %q, want %q", got, want)
	}
}
