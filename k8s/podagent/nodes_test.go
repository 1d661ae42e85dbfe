package podagent_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/client"
)

// slots is the node's slots as the master sees them.
func (e *env) slots() int {
	e.t.Helper()
	nodes, err := e.cl.Nodes(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Name == e.node {
			return n.Slots
		}
	}
	return -1
}

// editNode changes the Kubernetes node, spec and status.
func (e *env) editNode(edit func(*v1.Node)) {
	e.t.Helper()
	n, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	edit(n)
	if n, err = e.cs.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	edit(n)
	if _, err = e.cs.CoreV1().Nodes().UpdateStatus(e.ctx, n, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// TestUnavailableNodeOffersNoGPUs: a cordoned, NotReady or tainted node
// offers the master no GPUs, so no new task starts there while a running
// one goes on; once usable again it offers them all.
func TestUnavailableNodeOffersNoGPUs(t *testing.T) {
	e := newEnv(t, "cordon")
	id := e.submit(podSpec) // 2 of the node's 4 GPUs
	pod := e.pod(id)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	for _, tc := range []struct {
		name string
		set  func(*v1.Node)
	}{
		{"cordoned", func(n *v1.Node) { n.Spec.Unschedulable = true }},
		{"not ready", func(n *v1.Node) {
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionUnknown}}
		}},
		{"tainted", func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
		}},
	} {
		e.editNode(tc.set)
		// The node lists no GPUs; the running task keeps its 2 (the
		// master never schedules a node as smaller than what runs there).
		e.waitFor(tc.name+": the node to offer no GPUs", func() bool { return e.slots() == 0 })
		// The master sees no room in the pool: only a job queued
		// regardless can show that nothing starts there.
		r, err := e.cl.SubmitWith(e.ctx, json.RawMessage(fmt.Sprintf(
			`{"name": "other", "entrypoint": "true", "resources": {"slots": 2}, "pod_spec": %s}`, podSpec)),
			client.SubmitOptions{AllowInfeasible: true})
		if err != nil {
			t.Fatal(err)
		}
		other := r.ID
		time.Sleep(1500 * time.Millisecond) // several master ticks
		if j, err := e.cl.Job(e.ctx, other); err != nil || j.State != "queued" {
			t.Fatalf("%s: a job on the unavailable node is %q (%v), want queued", tc.name, j.State, err)
		}
		if _, err := e.cl.Kill(e.ctx, other); err != nil {
			t.Fatal(err)
		}
		e.jobState(other, "killed")
		e.editNode(func(n *v1.Node) {
			n.Spec.Unschedulable, n.Spec.Taints = false, nil
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
		})
		e.waitFor(tc.name+": the node's GPUs back", func() bool { return e.slots() == 4 })
	}
	if j, err := e.cl.Job(e.ctx, id); err != nil || j.State != "running" {
		t.Fatalf("the running job is %q (%v), want it running on", j.State, err)
	}
}

// TestPendingPodTimesOut: a pod that stays in an image pull back-off past
// the start timeout fails its attempt with the kubelet's reason.
func TestPendingPodTimesOut(t *testing.T) {
	e := setupEnv(t, "timeout")
	e.startTimeout = 2 * time.Second
	e.startAgent()
	id := e.submit(podSpec)
	pod := e.pod(id)
	p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = v1.PodPending
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "main", Image: "registry.example.com/train:1",
		State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}
	if _, err := e.cs.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.jobState(id, "failed")
	j, err := e.cl.Job(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	att := j.TaskList[0].Attempts
	if r := att[len(att)-1].Reason; !strings.Contains(r, "did not start within 2s") || !strings.Contains(r, "ImagePullBackOff") {
		t.Errorf("attempt reason %q, want the timeout and the kubelet's reason", r)
	}
}
