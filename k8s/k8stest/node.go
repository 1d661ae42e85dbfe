package k8stest

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
	if err := CreateNode(ctx, cs, name, gpus, labels); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}) })
}

// CreateNode is AddNode outside a test: it creates the node and leaves
// it. allot k8s-dev uses it to give a cluster without kubelets GPU nodes.
func CreateNode(ctx context.Context, cs kubernetes.Interface, name string, gpus int, labels map[string]string) error {
	res := v1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(int64(gpus), resource.DecimalSI),
		v1.ResourcePods: resource.MustParse("110")}
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     v1.NodeStatus{Capacity: res, Allocatable: res},
	}
	made, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	// Do what the node lifecycle controller does once a kubelet reports
	// in: admission tainted the new node not-ready, and it has no Ready
	// condition yet.
	made.Spec.Taints = nil
	if made, err = cs.CoreV1().Nodes().Update(ctx, made, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("untaint node %s: %w", name, err)
	}
	made.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, made, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("mark node %s ready: %w", name, err)
	}
	return nil
}
