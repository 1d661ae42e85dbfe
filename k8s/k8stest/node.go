package k8stest

import (
	"context"
	"testing"

	"github.com/allot-sched/allot/k8s/localapi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AddNode creates a fake node with the given allocatable nvidia.com/gpu
// count and labels, Ready and untainted as if a kubelet had reported in,
// and deletes it when the test ends. No kubelet runs: binding a pod to it
// only records the node name.
func AddNode(t testing.TB, cs kubernetes.Interface, name string, gpus int, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	if err := localapi.CreateNode(ctx, cs, name, gpus, labels); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}) })
}
