package k8s

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/allot-sched/allot/k8s/k8stest"
)

// TestCatchUp: a new leader whose pod cache lacks a pod the API server
// shows bound does not start scheduling until the cache shows it, or the
// pod is gone. The cache is made by hand so that it can lag on purpose.
func TestCatchUp(t *testing.T) {
	cs, err := kubernetes.NewForConfig(k8stest.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "catch-up"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	k8stest.AddNode(t, cs, ns+"-a", 4, nil)
	for _, then := range []string{"the cache shows it", "it is deleted"} {
		t.Run(then, func(t *testing.T) {
			p := boundPod(t, cs, ns, ns+"-a")
			// Every bound pod but p is in the cache.
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			all, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range all.Items {
				if all.Items[i].UID != p.UID {
					_ = indexer.Add(&all.Items[i])
				}
			}
			s := New(cs, DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
			s.pods = listers.NewPodLister(indexer)
			done := make(chan struct{})
			go func() { s.catchUp(ctx); close(done) }()
			select {
			case <-done:
				t.Fatal("caught up though the cache lacks a bound pod")
			case <-time.After(500 * time.Millisecond):
			}
			if then == "the cache shows it" {
				_ = indexer.Add(p)
			} else {
				zero := int64(0)
				if err := cs.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("still catching up after the cache caught up")
			}
		})
	}
}

// boundPod creates a pod and binds it to node.
func boundPod(t *testing.T, cs kubernetes.Interface, ns, node string) *v1.Pod {
	t.Helper()
	ctx := context.Background()
	q := resource.MustParse("1")
	p, err := cs.CoreV1().Pods(ns).Create(ctx, &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "p-", Namespace: ns},
		Spec: v1.PodSpec{SchedulerName: "nobody", Containers: []v1.Container{{Name: "c", Image: "busybox",
			Resources: v1.ResourceRequirements{Limits: v1.ResourceList{ResourceGPU: q}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}, Target: v1.ObjectReference{Kind: "Node", Name: node}}
	if err := cs.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err = cs.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}
