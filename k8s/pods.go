package k8s

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podGPUs is the pod's nvidia.com/gpu request: the sum over its
// containers, or the largest init container's when that is more, the way
// the kubelet counts extended resources. Limits stand in for a missing
// request, as the API server defaults them.
func podGPUs(p *v1.Pod) int {
	sum := 0
	for i := range p.Spec.Containers {
		sum += containerGPUs(&p.Spec.Containers[i])
	}
	for i := range p.Spec.InitContainers {
		sum = max(sum, containerGPUs(&p.Spec.InitContainers[i]))
	}
	return sum
}

func containerGPUs(c *v1.Container) int {
	if q, ok := c.Resources.Requests[ResourceGPU]; ok {
		return int(q.Value())
	}
	if q, ok := c.Resources.Limits[ResourceGPU]; ok {
		return int(q.Value())
	}
	return 0
}

// finished pods hold no GPUs.
func finished(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// podKey is namespace/name, the ID of a single-pod job.
func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// gangKey is namespace/group for gang members and "" for other pods. The
// PodGroup object's label wins over the lightweight coscheduling label.
func gangKey(p *v1.Pod) string {
	g := p.Labels[LabelPodGroupCR]
	if g == "" {
		g = p.Labels[LabelPodGroup]
	}
	if g == "" {
		return ""
	}
	return p.Namespace + "/" + g
}

// jobKey is the ID of the pod's job: its gang's key, else its own.
func jobKey(p *v1.Pod) string {
	if k := gangKey(p); k != "" {
		return k
	}
	return podKey(p)
}

// minAvailable is the gang's minimum: its PodGroup object's minMember for
// pods labelled with LabelPodGroupCR (groups holds them by
// namespace/name, nil when the CRD is not served), else the
// min-available label; a missing label means the whole gang (total pods).
func minAvailable(p *v1.Pod, total int, groups map[string]int) (int, error) {
	if name, ok := p.Labels[LabelPodGroupCR]; ok && name != "" {
		if groups == nil {
			return 0, fmt.Errorf("label %s: the PodGroup resource (%s) is not served; install its CRD and restart the scheduler",
				LabelPodGroupCR, podGroupGVR.GroupResource())
		}
		min, ok := groups[p.Namespace+"/"+name]
		if !ok {
			return 0, fmt.Errorf("PodGroup %s/%s does not exist; waiting for it", p.Namespace, name)
		}
		return min, nil
	}
	v, ok := p.Labels[LabelMinAvailable]
	if !ok {
		return total, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("label %s=%q: want a whole number >= 1", LabelMinAvailable, v)
	}
	return n, nil
}

// byAge orders pods by creation, then name, which is the order of their
// jobs in the queue and of a gang's pods in its starts.
func byAge(a, b *v1.Pod) int {
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(podKey(a), podKey(b))
}

// boundNode is where the pod is, or is assumed to be after a binding the
// informer has not shown yet; "" when unbound.
func boundNode(p *v1.Pod, assumed map[types.UID]string) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	return assumed[p.UID]
}

// sortPods returns the pods ordered by byAge without changing the input.
func sortPods(pods []*v1.Pod) []*v1.Pod {
	out := slices.Clone(pods)
	slices.SortFunc(out, byAge)
	return out
}

// priority is the pod's resolved PriorityClass value (the Priority
// admission plugin fills spec.priority) as the core's priority, 0 without
// one. Kubernetes runs larger values first and the core smaller ones, so
// the value is negated.
func priority(p *v1.Pod) int {
	if p.Spec.Priority == nil {
		return 0
	}
	return -int(*p.Spec.Priority)
}

// preemptible reports whether the core may evict the pod for more
// important work: every Allot pod but those labelled
// allot.dev/preemptible: "false".
func preemptible(p *v1.Pod) bool { return p.Labels[LabelPreemptible] != "false" }

// draining reports whether a bound pod is on its way out: the API server
// shows it terminating, or the scheduler has asked to evict it and the
// informer does not show that yet. Its GPUs stay held until it is gone.
func draining(p *v1.Pod, evicted map[types.UID]bool) bool {
	return p.DeletionTimestamp != nil || evicted[p.UID]
}

// neverPreempts reports whether the pod's PriorityClass says it must not
// preempt (preemptionPolicy: Never, copied into the pod's spec).
func neverPreempts(p *v1.Pod) bool {
	return p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == v1.PreemptNever
}
