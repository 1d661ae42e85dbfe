package k8s_test

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/k8s/k8stest"
)

var podGroups = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

var crdOnce sync.Once

// installPodGroupCRD installs a PodGroup CRD (the fields Allot reads of
// scheduler-plugins' one) into the shared API server once, and waits
// until the API server serves it.
func installPodGroupCRD(t *testing.T, c *cluster, dyn dynamic.Interface) {
	t.Helper()
	crdOnce.Do(func() {
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "podgroups.scheduling.x-k8s.io"},
			"spec": map[string]any{
				"group": "scheduling.x-k8s.io", "scope": "Namespaced",
				"names": map[string]any{"plural": "podgroups", "singular": "podgroup", "kind": "PodGroup", "listKind": "PodGroupList"},
				"versions": []any{map[string]any{"name": "v1alpha1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{
							"minMember": map[string]any{"type": "integer", "format": "int32"}}}}}}}},
			}}}
		gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
		if _, err := dyn.Resource(gvr).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create PodGroup CRD: %v", err)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := c.cs.Discovery().ServerResourcesForGroupVersion(podGroups.GroupVersion().String())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("PodGroup resource not served: %v", err)
		}
	}
}

// TestPodGroupObject: pods naming a PodGroup object bind once its
// minMember of them fit, and pods naming a missing one wait, saying so.
func TestPodGroupObject(t *testing.T) {
	c := newCluster(t)
	dyn, err := dynamic.NewForConfig(k8stest.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	installPodGroupCRD(t, c, dyn)
	pg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
		"metadata": map[string]any{"name": "pg", "namespace": c.name},
		"spec":     map[string]any{"minMember": int64(2)},
	}}
	if _, err := dyn.Resource(podGroups).Namespace(c.name).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PodGroup: %v", err)
	}
	c.node("a", 4)
	c.node("b", 4)
	member := func(group string) map[string]string { return map[string]string{k8s.LabelPodGroupCR: group} }
	for _, name := range []string{"g-0", "g-1", "g-2"} {
		c.pod(name, 4, member("pg"))
	}
	c.pod("lost", 1, member("nope"))
	c.start()
	pods := c.waitFor("two of the gang bound, the rest waiting", func(pods map[string]*v1.Pod) bool {
		n := 0
		for _, name := range []string{"g-0", "g-1", "g-2"} {
			if bound(pods[name]) {
				n++
			}
		}
		return n == 2 && waitsWith("PodGroup "+c.name+"/nope does not exist")(pods["lost"])
	})
	checkCapacity(t, c, pods, map[string]int{"a": 4, "b": 4})
}
