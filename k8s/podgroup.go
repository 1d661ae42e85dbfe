package k8s

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// podGroupGVR is scheduler-plugins' PodGroup custom resource. It is read
// as unstructured objects, so Allot needs none of that project's code.
var podGroupGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// watchPodGroups starts an informer on PodGroup objects when the API
// server serves them and s.Dynamic is set; otherwise pods are grouped by
// the coscheduling labels only. Whether the resource is served is asked
// once: a CRD installed later needs a restart.
func (s *Scheduler) watchPodGroups(ctx context.Context, h cache.ResourceEventHandler) error {
	if s.Dynamic == nil {
		return nil
	}
	gv := podGroupGVR.GroupVersion().String()
	if _, err := s.client.Discovery().ServerResourcesForGroupVersion(gv); apierrors.IsNotFound(err) {
		s.log.Info("the PodGroup resource is not served; gangs come from labels only", "group_version", gv)
		return nil
	} else if err != nil {
		return fmt.Errorf("discover %s: %w", gv, err)
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(s.Dynamic, 0)
	inf := f.ForResource(podGroupGVR)
	if _, err := inf.Informer().AddEventHandler(h); err != nil {
		return fmt.Errorf("watch podgroups: %w", err)
	}
	s.podGroups = inf.Lister()
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer cache for %v did not sync", typ)
		}
	}
	return nil
}

// listPodGroups maps namespace/name of every PodGroup to its minMember
// (at least 1), or returns nil when PodGroups are not watched.
func (s *Scheduler) listPodGroups() (map[string]int, error) {
	if s.podGroups == nil {
		return nil, nil
	}
	objs, err := s.podGroups.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list podgroups: %w", err)
	}
	out := make(map[string]int, len(objs))
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		min, _, err := unstructured.NestedInt64(u.Object, "spec", "minMember")
		if err != nil {
			s.log.Warn("PodGroup with a malformed minMember; taken as 1", "podgroup", u.GetNamespace()+"/"+u.GetName(), "err", err)
		}
		out[u.GetNamespace()+"/"+u.GetName()] = max(int(min), 1)
	}
	return out, nil
}
