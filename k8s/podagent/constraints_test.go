package podagent_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/k8s/k8stest"
)

// twoTypes is setupEnv with a second node, of A100s in zone b, beside
// the H100 node, and the backend started with both registered.
func twoTypes(t *testing.T, name string) (e *env, a100 string) {
	t.Helper()
	e = setupEnv(t, name)
	a100 = e.node + "-a100"
	k8stest.AddNode(t, e.cs, a100, 4, map[string]string{"allot-test": e.ns, "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "zone": "b"})
	e.startAgent()
	e.waitFor("the A100 node to register", func() bool {
		nodes, err := e.cl.Nodes(e.ctx)
		for _, n := range nodes {
			if n.Name == a100 && err == nil && n.Slots == 4 && n.GPUType == "a100" {
				return true
			}
		}
		return false
	})
	return e, a100
}

func selecting(label, value string) string {
	return fmt.Sprintf(`{"spec": {"nodeSelector": {%q: %q}, "containers": [{"name": "main", "image": "i"}]}}`, label, value)
}

// A pod_spec selecting a GPU model by nvidia.com/gpu.product gives the
// job that GPU type, so the master starts it only on such a node.
func TestGPUSelectorPlacesOnType(t *testing.T) {
	e, a100 := twoTypes(t, "gpusel")
	for _, tc := range []struct{ model, node string }{
		{"NVIDIA-A100-SXM4-80GB", a100},
		{"NVIDIA-H100-80GB-HBM3", e.node},
		{"NVIDIA-A100-SXM4-80GB", a100},
		{"NVIDIA-H100-80GB-HBM3", e.node},
	} {
		id := e.submit(selecting("nvidia.com/gpu.product", tc.model))
		if pod := e.pod(id); pod.Spec.NodeName != tc.node {
			t.Errorf("job %d selecting %s: pod on %s, want %s", id, tc.model, pod.Spec.NodeName, tc.node)
		}
	}
}

// A placement rule the master does not read (here a nodeSelector on
// zone, which only the A100 node matches, with the job asking for H100s)
// is checked by the backend: the attempt fails naming the rule and the
// node, and no pod is made.
func TestSelectorMismatchFailsAttempt(t *testing.T) {
	e, _ := twoTypes(t, "zonesel")
	id := e.submitWith(selecting("zone", "b"), `{"slots": 2, "gpu": "h100"}`)
	e.jobState(id, "failed")
	j, err := e.cl.Job(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	att := j.TaskList[0].Attempts
	want := fmt.Sprintf("not started: its nodeSelector zone=b does not match node %s, which has no zone label", e.node)
	if len(att) == 0 || !strings.Contains(att[len(att)-1].Reason, want) {
		t.Fatalf("attempts %+v, want a reason saying %q", att, want)
	}
	pods, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: fmt.Sprintf("allot.dev/job=%d", id)})
	if err != nil || len(pods.Items) != 0 {
		t.Fatalf("pods of the job: %d (%v), want none", len(pods.Items), err)
	}
}
