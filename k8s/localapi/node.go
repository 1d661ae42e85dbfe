package localapi

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// CreateNode creates a fake node with the given allocatable
// nvidia.com/gpu count and labels, Ready and untainted as if a kubelet
// had reported in. No kubelet runs: binding a pod to it only records the
// node name. allot k8s-dev gives its cluster GPU nodes so, and the
// tests (k8stest.AddNode).
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
